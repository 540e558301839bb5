#!/bin/busybox sh
# PID 1 of the test guest's initramfs: load the few modules, make the host's / (9p, read-only) plus a tmpfs
# overlay the guest root, mount the shared directory, and run the repo's desktop.sh in that root. Kernel
# command line: gb_repo=/path/to/checkout (required).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mark() { echo "GLOVEBOX-MARK $1 $(cut -d' ' -f1 /proc/uptime)" > /dev/ttyS0; }
fail() { echo "GLOVEBOX-FAIL $*" > /dev/ttyS0; poweroff -f; }
mark init
while read -r m; do insmod "/modules/$m.ko" || echo "insmod $m failed" > /dev/ttyS0; done < /modules/order
mark modules
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose hostroot /mnt/lower || fail "mount hostroot"
mount -t tmpfs -o size=768m,mode=0755 tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /newroot || fail "mount overlay"
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o mode=620,ptmxmode=666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
mount -t tmpfs -o mode=0755 tmpfs /newroot/run
mkdir -p /newroot/shared
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 shared /newroot/shared 2>/dev/null || echo "no shared dir" > /dev/ttyS0
[ -n "$gb_repo" ] || fail "no gb_repo= on the kernel command line"
# The checkout at its own path, over the guest's tmpfs mounts (CI may clone it under /tmp).
mkdir -p "/newroot$gb_repo"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose repo "/newroot$gb_repo" || fail "mount repo"
mark root
exec chroot /newroot /bin/sh "$gb_repo/images/test-guest/desktop.sh"
