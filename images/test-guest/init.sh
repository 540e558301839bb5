#!/bin/busybox sh
# PID 1 of the test guest's initramfs: load the few modules, make the host's / (9p, read-only) plus a tmpfs
# overlay the guest root, create the desktop user, start glovebox-agent in that root from the initramfs copy
# (restarted whenever it exits), mount the shared directory and the checkout, and run the repo's desktop.sh
# in that root.
# Kernel command line: gb_repo=/path/to/checkout (required).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mark() { echo "GLOVEBOX-MARK $1 $(cut -d' ' -f1 /proc/uptime)" > /dev/ttyS0; }
fail() { echo "GLOVEBOX-FAIL $*" > /dev/ttyS0; poweroff -f; }
mark init
# Loopback up: Chromium's DevTools port (127.0.0.1) is reached over it.
ip link set lo up
load() { for m; do insmod "/modules/$m.ko" || echo "insmod $m failed" > /dev/ttyS0; done; }
# /modules/order has dependencies first. virtio and PCI now; the serial and vsock modules (for the agent)
# load in the background while the 9p and overlay modules (for the root) load here: two vCPUs.
agentmods= rootmods=
while read -r m; do
	case $m in
	virtio_console | vsock | vmw_vsock_* | vsock_loopback) agentmods="$agentmods $m" ;;
	9pnet* | netfs | fscache | 9p | overlay) rootmods="$rootmods $m" ;;
	*) load "$m" ;;
	esac
done < /modules/order
load $agentmods &
agentpid=$!
load $rootmods
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
mark root
wait $agentpid

# The desktop user: a uid the host does not use, so nothing of the host's is its own.
user=gbdesk uid=4242
echo "$user:x:$uid:$uid:glovebox desktop:/home/$user:/bin/sh" >> /newroot/etc/passwd
echo "$user:x:$uid:" >> /newroot/etc/group
mkdir -p /newroot/home/$user /newroot/run/user/$uid /newroot/tmp/.X11-unix
chown $uid:$uid /newroot/home/$user /newroot/run/user/$uid
chmod 700 /newroot/run/user/$uid
chmod 1777 /newroot/tmp/.X11-unix
for f in /sys/class/virtio-ports/*/name; do
	d=${f%/name}
	[ "$(cat "$f")" = org.glovebox.agent.0 ] && chown $uid "/dev/${d##*/}"
done
# The agent first, from the initramfs (static: starting it reads nothing over 9p) at /run/gb in the new root,
# as the desktop user (asuser: setpriv and env would be read over 9p). It serves at once and attaches the
# desktop backends when desktop.sh's Xvfb is up; it restarts whenever it exits (its pid in /run/gb-agent.pid:
# the QEMU test kills it; its log in /run/agent.log, which desktop.sh copies to /shared). desktop.sh runs its
# own programs through /run/gb/asuser too. Its DBUS_SESSION_BUS_ADDRESS is the session bus desktop.sh starts
# later at that fixed path; the agent retries opening accessibility until the bus is there.
mkdir -p /newroot/run/gb
mount --bind /gb /newroot/run/gb
(
	while :; do
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/$user USER=$user DISPLAY=:0 XDG_RUNTIME_DIR=/run/user/$uid \
			DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus chroot /newroot /run/gb/asuser $uid /run/gb/glovebox-agent -listen serial:///dev/virtio-ports/org.glovebox.agent.0 \
			-listen vsock://:7005 -allow-cid 1 -display :0 >> /newroot/run/agent.log 2>&1 &
		echo $! > /newroot/run/gb-agent.pid
		wait $!
		sleep 0.1
	done
) &
mark agent-started

# What the agent does not need: the shared directory and the checkout (desktop.sh and the test programs).
mkdir -p /newroot/shared
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 shared /newroot/shared 2>/dev/null || echo "no shared dir" > /dev/ttyS0
chmod 0777 /newroot/shared 2>/dev/null
[ -n "$gb_repo" ] || fail "no gb_repo= on the kernel command line"
# The checkout at its own path, over the guest's tmpfs mounts (CI may clone it under /tmp).
mkdir -p "/newroot$gb_repo"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose repo "/newroot$gb_repo" || fail "mount repo"
mark mounts
exec chroot /newroot /bin/sh "$gb_repo/images/test-guest/desktop.sh"
