#!/bin/busybox sh
# PID 1 of the test guest's initramfs. The agent starts as soon as it can listen: right after the virtio,
# serial-port and vsock modules, in the root it shares with the desktop while that root is still only a
# tmpfs (/newroot, made by gbroot base), so its start (Go initialisation, ~0.5-1 s under TCG) overlaps loading
# the 9p and overlay modules and mounting the host. The host's / (9p, read-only) then joins that root one
# top-level directory at a time (gbroot host), each an overlay with its upper layer in tmpfs: mounts below
# the agent's root reach it, one overlay over /newroot itself would not. Then the shared directory and the
# checkout are mounted, and the repo's desktop.sh runs in that root.
# Kernel command line: gb_repo=/path/to/checkout (required); gb_warm=0 skips the agent's warm-up run.
# build.sh made the busybox applet links in /bin and lists the modules, dependencies first, in /modules/order.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mark() { echo "GLOVEBOX-MARK $1 $(cut -d' ' -f1 /proc/uptime)" > /dev/ttyS0; }
fail() { echo "GLOVEBOX-FAIL $*" > /dev/ttyS0; poweroff -f; }
mark init
load() { for m; do insmod "/modules/$m.ko" || echo "insmod $m failed" > /dev/ttyS0; done; }
# Module groups, each in /modules/order's order: virtio and PCI first; then the agent's (the serial port,
# vsock for its listener) and the root's (9p, overlay) in parallel while gbroot prepares the new root; the
# vsock transports (in-guest vsock, CID 1) once the agent is started.
coremods= agentmods= rootmods= latemods=
while read -r m; do
	case $m in
	virtio_console | vsock) agentmods="$agentmods $m" ;;
	9pnet* | netfs | fscache | 9p | overlay) rootmods="$rootmods $m" ;;
	vmw_vsock_* | vsock_loopback) latemods="$latemods $m" ;;
	*) coremods="$coremods $m" ;;
	esac
done < /modules/order
# Warm-up: the agent's Go start (runtime and package initialisation, ~0.5-1 s under TCG) once on the other
# vCPU while the modules load; TCG keeps the code it translated, so the real start below is shorter.
[ "${gb_warm:-1}" = 1 ] && /gb/glovebox-agent -version > /dev/null 2>&1 &
load $coremods
load $agentmods &
agentpid=$!
load $rootmods &
rootpid=$!

# The root the agent and the desktop share: a tmpfs with the guest's own /dev, /proc, /sys, /tmp and /run.
/gb/gbroot base /newroot || fail "gbroot base"
# The desktop user: a uid the host does not use, so nothing of the host's is its own (its passwd entry and
# home are added once /etc and /home are there).
user=gbdesk uid=4242
mkdir -p /newroot/run/user/$uid /newroot/tmp/.X11-unix /newroot/run/gb
chown $uid:$uid /newroot/run/user/$uid
chmod 700 /newroot/run/user/$uid
chmod 1777 /newroot/tmp/.X11-unix
mount --bind /gb /newroot/run/gb
wait $agentpid
# The agent's port, given to the desktop user. The port's device may appear a moment after its module is in:
# each start of the agent below asks again until it is there.
ownport() {
	for f in /sys/class/virtio-ports/*/name; do
		[ -e "$f" ] || continue
		d=${f%/name}
		read -r n < "$f"
		[ "$n" = org.glovebox.agent.0 ] && [ -e "/dev/${d##*/}" ] && chown $uid "/dev/${d##*/}" && return 0
	done
	return 1
}
# The agent, from the initramfs (static: starting it reads nothing over 9p) at /run/gb in the new root, as
# the desktop user (asuser: setpriv and env would be read over 9p). It serves at once and attaches the
# desktop backends when desktop.sh's Xvfb is up; it restarts whenever it exits (its pid in /run/gb-agent.pid:
# the QEMU test kills it; its log in /run/agent.log, which desktop.sh copies to /shared). desktop.sh runs its
# own programs through /run/gb/asuser too. Its DBUS_SESSION_BUS_ADDRESS is the session bus desktop.sh starts
# later at that fixed path; the agent retries opening accessibility until the bus is there.
(
	while :; do
		until ownport; do sleep 0.02; done
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/$user USER=$user DISPLAY=:0 XDG_RUNTIME_DIR=/run/user/$uid \
			DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus chroot /newroot /run/gb/asuser $uid /run/gb/glovebox-agent -listen serial:///dev/virtio-ports/org.glovebox.agent.0 \
			-listen vsock://:7005 -allow-cid 1 -display :0 >> /newroot/run/agent.log 2>&1 &
		echo $! > /newroot/run/gb-agent.pid
		wait $!
		sleep 0.1
	done
) &
mark agent-started

load $latemods
# Loopback up: Chromium's DevTools port (127.0.0.1) is reached over it.
ip link set lo up
wait $rootpid
mark modules

# The host's / read-only, each top-level directory an overlay in the new root (gbroot host).
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose hostroot /mnt/lower || fail "mount hostroot"
mount -t tmpfs -o size=768m,mode=0755 tmpfs /mnt/rw
/gb/gbroot host /mnt/lower /mnt/rw /newroot || fail "gbroot host"
echo "$user:x:$uid:$uid:glovebox desktop:/home/$user:/bin/sh" >> /newroot/etc/passwd
echo "$user:x:$uid:" >> /newroot/etc/group
mkdir -p /newroot/home/$user
chown $uid:$uid /newroot/home/$user
mark root
# Xvfb, the first of the desktop, as the desktop user, before the shared directory and the checkout are
# mounted: desktop.sh waits for its socket.
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/$user USER=$user XDG_RUNTIME_DIR=/run/user/$uid \
	chroot /newroot /run/gb/asuser $uid Xvfb :0 -screen 0 1280x800x24 -nolisten tcp -noreset -extension GLX > /newroot/tmp/xvfb.log 2>&1 &

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
