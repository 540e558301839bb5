#!/usr/bin/env bash
# Builds the Glovebox desktop guest image from Debian bookworm, without Docker and without mounting any
# image: debootstrap into a directory, install the pinned packages (packages.txt) in a chroot inside a
# private mount namespace, add glovebox-agent and its services, then mkfs.ext4 -d and qemu-img convert.
# Output in images/desktop/build/: desktop.qcow2 (ext4 root filesystem on the whole disk, /dev/vda),
# vmlinuz + initrd.img (direct kernel boot) and vmlinux (uncompressed, for fast boots under TCG).
# Needs root (debootstrap and chroot), debootstrap, e2fsprogs, qemu-utils, go, and the Debian mirror.
#   GB_MIRROR      Debian mirror (default http://deb.debian.org/debian)
#   GB_IMAGE_SIZE  filesystem size (default 6G; the qcow2 only holds what is used)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/build
rootfs=$out/rootfs
mirror=${GB_MIRROR:-http://deb.debian.org/debian}
size=${GB_IMAGE_SIZE:-6G}
step() { printf '== image: %s (%ds)\n' "$*" "$SECONDS"; }
die() { echo "image: $*" >&2; exit 1; }
[[ $EUID -eq 0 ]] || die "run as root: debootstrap and chroot need it (no image is mounted)"
for c in debootstrap mkfs.ext4 qemu-img unshare go; do command -v $c >/dev/null || die "$c missing (make deps)"; done
mkdir -p "$out"

# chroot_run runs a command in the rootfs with /proc, /sys and /dev in a private mount namespace, so
# nothing stays mounted when it ends (and the host's mounts are never touched).
chroot_run() {
	unshare --mount --fork -- sh -c '
		set -e
		r=$1; shift
		mount --make-rprivate /
		mount -t proc proc "$r/proc"
		mount -t sysfs sysfs "$r/sys"
		mount --rbind /dev "$r/dev"
		exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
	' sh "$rootfs" "$@"
}

if [[ ! -e $rootfs/.glovebox-debootstrap ]]; then
	step "debootstrap bookworm (minbase) into $rootfs"
	rm -rf "$rootfs"
	debootstrap --variant=minbase bookworm "$rootfs" "$mirror"
	touch "$rootfs/.glovebox-debootstrap"
fi

pins=$(grep -v '^#' "$here/packages.txt" | tr '\n' ' ')
if [[ "$(cat "$rootfs/.glovebox-packages" 2>/dev/null)" != "$pins" ]]; then
	step "installing pinned packages: $pins"
	cat > "$rootfs/etc/apt/sources.list" <<SRC
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${GB_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main
SRC
	# No service starts inside the chroot.
	printf '#!/bin/sh\nexit 101\n' > "$rootfs/usr/sbin/policy-rc.d"
	chmod +x "$rootfs/usr/sbin/policy-rc.d"
	chroot_run apt-get update -q
	# shellcheck disable=SC2086
	chroot_run apt-get install -y -q --no-install-recommends $pins
	chroot_run apt-get clean
	rm -f "$rootfs/usr/sbin/policy-rc.d"
	echo "$pins" > "$rootfs/.glovebox-packages"
fi

step "glovebox-agent, the desktop user and the services"
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$(git describe --always --dirty 2>/dev/null || echo dev)" \
	-o "$rootfs/usr/local/bin/glovebox-agent" ./guest/cmd/glovebox-agent)
chroot_run id desktop >/dev/null 2>&1 || chroot_run useradd --create-home --uid 1000 --shell /bin/bash desktop
cp -r "$here/rootfs/." "$rootfs/"
echo glovebox > "$rootfs/etc/hostname"
echo "/dev/vda / ext4 defaults,noatime 0 1" > "$rootfs/etc/fstab"
chroot_run systemctl enable glovebox-xvfb.service glovebox-desktop.service glovebox-chromium.service glovebox-firefox.service glovebox-agent.service
chroot_run systemctl mask systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer 2>/dev/null || true

step "kernel and initramfs"
kver=$(ls "$rootfs/lib/modules" | sort -V | tail -1)
cp "$rootfs/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "$rootfs/boot/initrd.img-$kver" "$out/initrd.img"
off=$(LC_ALL=C grep -aobUP '\xFD7zXZ\x00' "$out/vmlinuz" | head -1 | cut -d: -f1 || true)
[[ -n $off ]] && { tail -c +$((off + 1)) "$out/vmlinuz" | xz -dc > "$out/vmlinux" 2>/dev/null || true; }

step "filesystem image ($size, ext4 from the directory, no mount)"
rm -f "$out/rootfs.raw"
mkfs.ext4 -q -F -L glovebox-root -E root_owner=0:0 -d "$rootfs" "$out/rootfs.raw" "$size"
qemu-img convert -O qcow2 "$out/rootfs.raw" "$out/desktop.qcow2.tmp"
mv "$out/desktop.qcow2.tmp" "$out/desktop.qcow2"
rm -f "$out/rootfs.raw"
step "done: $out/desktop.qcow2 (+ vmlinuz, initrd.img, vmlinux); boot it with $here/boot.sh"
