#!/usr/bin/env bash
# Builds the QEMU test guest into images/test-guest/build/ (idempotent: only what is missing or stale is
# rebuilt):
#   vmlinux            the uncompressed kernel extracted from the installed Debian kernel (PVH entry: no
#                      decompression under TCG, which costs ~3 s)
#   initramfs.cpio     busybox-static, the few modules the guest needs, init (init.sh) and glovebox-agent
#                      (uncompressed: decompressing it under TCG costs more than loading the bigger file)
#   glovebox-agent     built from this checkout, static and stripped; init starts it from the initramfs copy
#                      as soon as the root is mounted
#   asuser             a static helper that runs a program as the desktop user (asuser.c; in the initramfs)
#   gbroot             a static helper that mounts the guest's root (gbroot.c; in the initramfs)
#   guestprobe         built from this checkout; the guest runs it through the 9p checkout
#   firefox-profile    a Firefox ESR profile made by one headless run on the host (tests/vm/ffwarm), when
#                      firefox-esr is installed: the QEMU test copies it, since under TCG a first run's work
#                      (compiling the browser's chrome scripts into the startup cache, the add-on, search and
#                      places databases) kept Firefox's main thread busy for minutes
# Needs: linux-image-amd64, busybox-static, xz-utils, cpio, gcc (static glibc), libjpeg62-turbo-dev, go.
# The kernel is never committed: it is built here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/build
mkdir -p "$out"

kver=${KVER:-$(ls /lib/modules | sort -V | tail -1)}
vmlinuz=/boot/vmlinuz-$kver
[[ -r $vmlinuz ]] || { echo "build.sh: no $vmlinuz (apt-get install linux-image-amd64)" >&2; exit 1; }
[[ -x /bin/busybox ]] || { echo "build.sh: no /bin/busybox (apt-get install busybox-static)" >&2; exit 1; }

# vmlinux: find the XZ stream inside the bzImage and decompress it (the logic of the kernel's
# scripts/extract-vmlinux, for the one compression Debian uses).
if [[ ! -s $out/vmlinux || $vmlinuz -nt $out/vmlinux ]]; then
	echo "build.sh: extracting vmlinux from $vmlinuz"
	off=$(LC_ALL=C grep -aobUP '\xFD7zXZ\x00' "$vmlinuz" | head -1 | cut -d: -f1 || true)
	[[ -n $off ]] || { echo "build.sh: no XZ stream in $vmlinuz" >&2; exit 1; }
	tail -c +$((off + 1)) "$vmlinuz" | xz -dc > "$out/vmlinux.tmp" 2>/dev/null || true
	head -c 4 "$out/vmlinux.tmp" | grep -q $'\x7fELF' || { echo "build.sh: extracted kernel is not ELF" >&2; exit 1; }
	mv "$out/vmlinux.tmp" "$out/vmlinux"
fi

# The agent and the in-guest probe, built on the host. The agent is copied into the initramfs: stripped and
# linked statically (libjpeg and glibc included), so starting it reads nothing over 9p.
echo "build.sh: building glovebox-agent and guestprobe"
(cd "$repo" && go build -tags netgo,osusergo -ldflags '-s -w -linkmode external -extldflags -static' \
	-o "$out/glovebox-agent" ./guest/cmd/glovebox-agent)
(cd "$repo" && CGO_ENABLED=0 go build -o "$out/guestprobe" ./tests/vm/guestprobe)
# The warm Firefox profile, remade when Firefox or ffwarm (which holds firefoxprofile's user.js) changes.
if command -v firefox-esr > /dev/null; then
	(cd "$repo" && go build -buildvcs=false -o "$out/ffwarm" ./tests/vm/ffwarm)
	ffstamp="$(firefox-esr --version 2>/dev/null) $(sha256sum "$out/ffwarm" | cut -c1-16)"
	if [[ ! -d $out/firefox-profile || "$(cat "$out/firefox-profile.stamp" 2>/dev/null)" != "$ffstamp" ]]; then
		echo "build.sh: making the warm Firefox profile"
		rm -f "$out/firefox-profile.stamp"
		"$out/ffwarm" -firefox firefox-esr -profile "$out/firefox-profile"
		echo "$ffstamp" > "$out/firefox-profile.stamp"
	fi
fi
# asuser: drops to the desktop user and execs, without reading setpriv and env over 9p.
# gbroot: builds the guest's root (the tmpfs and the host's overlays) in one process instead of ~30 busybox runs.
for tool in asuser gbroot; do
	if [[ ! -s $out/$tool || $here/$tool.c -nt $out/$tool ]]; then
		gcc -static -Os -s -o "$out/$tool" "$here/$tool.c"
	fi
done

# strip_sig drops a module's appended signature (PKCS#7, then struct module_signature whose last 4 bytes are
# the signature's length, big-endian, then the magic line): this kernel loads unsigned modules (no
# MODULE_SIG_FORCE; it only notes the taint), and checking 16 signatures costs time under TCG.
strip_sig() {
	local f=$1 magic='~Module signature appended~' size n
	[[ $(tail -c 28 "$f") == "$magic" ]] || return 0
	size=$(stat -c %s "$f")
	n=$(tail -c 32 "$f" | head -c 4 | od -An -tu1 | awk '{print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4}')
	truncate -s $((size - 28 - 12 - n)) "$f"
}

# initramfs: busybox with its applet links, the modules (unsigned) with their dependencies in load order
# (from modules.dep), init.
modules="virtio_pci virtio_console 9pnet_virtio 9p overlay vmw_vsock_virtio_transport vsock_loopback"
stamp="$kver $(sha256sum "$here/init.sh" "$here/build.sh" /bin/busybox "$out/glovebox-agent" "$out/asuser" "$out/gbroot" | cut -c1-16 | tr '\n' ' ') $modules"
if [[ ! -s $out/initramfs.cpio || "$(cat "$out/initramfs.stamp" 2>/dev/null)" != "$stamp" ]]; then
	echo "build.sh: building initramfs ($kver)"
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,modules,gb}
	cp /bin/busybox "$root/bin/busybox"
	# The applet links, made here: busybox --install at boot costs ~0.1-0.2 s under TCG.
	for a in $(/bin/busybox --list); do
		[[ $a == busybox ]] || ln -s busybox "$root/bin/$a"
	done
	cp "$out/glovebox-agent" "$out/asuser" "$out/gbroot" "$root/gb/"
	declare -A dep seen
	while IFS=: read -r mod deps; do dep[$mod]=$deps; done < "/lib/modules/$kver/modules.dep"
	order=()
	add() { # $1: module path relative to /lib/modules/KVER; its dependencies first
		[[ -n ${seen[$1]:-} ]] && return
		seen[$1]=1
		local i ds=(${dep[$1]:-})
		for ((i = ${#ds[@]} - 1; i >= 0; i--)); do add "${ds[i]}"; done
		order+=("$1")
	}
	for m in $modules; do
		f=$(grep -E "(^|/)$m\.ko(\.[a-z]+)?:" "/lib/modules/$kver/modules.dep" | head -1 | cut -d: -f1 || true)
		[[ -n $f ]] || continue # built into this kernel
		add "$f"
	done
	: > "$root/modules/order"
	for f in "${order[@]}"; do
		m=$(basename "$f"); m=${m%%.ko*}
		case $f in
		*.xz) xz -dc "/lib/modules/$kver/$f" > "$root/modules/$m.ko" ;;
		*.zst) zstd -qdc "/lib/modules/$kver/$f" > "$root/modules/$m.ko" ;;
		*) cp "/lib/modules/$kver/$f" "$root/modules/$m.ko" ;;
		esac
		strip_sig "$root/modules/$m.ko"
		echo "$m" >> "$root/modules/order"
	done
	install -m 0755 "$here/init.sh" "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) > "$out/initramfs.cpio.tmp"
	mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
	rm -f "$out/initramfs.cpio.gz"
	echo "$stamp" > "$out/initramfs.stamp"
fi

echo "build.sh: test guest in $out"
