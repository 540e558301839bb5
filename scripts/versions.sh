# Pinned tool versions, sourced by the Makefile's scripts and .ci/run. Change them here only.
BUF_VERSION=v1.75.0
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2
GRPCURL_VERSION=v1.9.4

# npm packages are pinned exactly in the package.json + package-lock.json of each directory below (npm ci);
# the versions are repeated here for people: @modelcontextprotocol/sdk 1.32.2 (tests/mcp/js); @bufbuild/protoc-gen-es
# 2.17.0 (run by buf generate as a local plugin), @bufbuild/protobuf 2.17.0, @connectrpc/connect and
# @connectrpc/connect-node 2.2.0 (proto/ts).
NPM_DIRS="proto/ts tests/mcp/js"

# Debian packages the tests and the local desktop need.
DEBIAN_PACKAGES="xvfb openbox xdotool xclip xinput scrot imagemagick x11-utils x11-xserver-utils x11-apps
  gtk-3-examples python3-gi gir1.2-gtk-3.0 zenity dbus-x11 at-spi2-core xterm libjpeg62-turbo-dev libx11-dev
  x11proto-dev fonts-noto-cjk fonts-noto-color-emoji xfonts-base git make gcc
  protobuf-compiler protobuf-compiler-grpc python3-grpcio python3-protobuf chromium firefox-esr python3-pyatspi
  qemu-system-x86 qemu-utils linux-image-amd64 busybox-static xz-utils cpio debootstrap e2fsprogs"
# The console's live-view peer in `make bench` (x11vnc with Debian's noVNC page).
DEBIAN_PACKAGES="$DEBIAN_PACKAGES x11vnc novnc"
# The drop benchmark's peer (a unix-socket copy).
DEBIAN_PACKAGES="$DEBIAN_PACKAGES socat"
# Node.js for the TypeScript client (proto/ts) and the TypeScript MCP SDK tests (tests/mcp/js).
DEBIAN_PACKAGES="$DEBIAN_PACKAGES nodejs"
# Recording export's video (glovebox recording export).
DEBIAN_PACKAGES="$DEBIAN_PACKAGES ffmpeg"
# The recordings scenario: Debian's mousepad is the recorded editor; python3-jsonschema validates the exported
# steps.jsonl against docs/recording-step.schema.json (a validator nobody here wrote).
DEBIAN_PACKAGES="$DEBIAN_PACKAGES mousepad python3-jsonschema"
