#!/bin/sh
# Runs as PID 1 inside the test guest's overlay root (the host's / read-only under a tmpfs): creates the
# desktop user, starts Xvfb, glovebox-agent (virtio-serial port org.glovebox.agent.0 and vsock port 7005
# allowing CID 1; a second agent on vsock port 7006 with the default CID check, for the in-guest vsock
# test), openbox and the test apps, and a root shell on the port org.glovebox.test.ctl for the QEMU test.
# The agent restarts when it exits (the test kills it). Timing markers go to the serial console.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
here=$(cd "$(dirname "$0")" && pwd)
build=$here/build
mark() { echo "GLOVEBOX-MARK $1 $(cut -d' ' -f1 /proc/uptime)" > /dev/ttyS0; }
port() { # device of the virtio-serial port named $1
	for f in /sys/class/virtio-ports/*/name; do
		[ "$(cat "$f")" = "$1" ] && { echo "/dev/$(basename "$(dirname "$f")")"; return; }
	done
}
# The desktop user: a uid the host does not use, so nothing of the host's is its own.
user=gbdesk uid=4242
echo "$user:x:$uid:$uid:glovebox desktop:/home/$user:/bin/sh" >> /etc/passwd
echo "$user:x:$uid:" >> /etc/group
mkdir -p /home/$user /run/user/$uid && chown $uid:$uid /home/$user /run/user/$uid && chmod 700 /run/user/$uid
mkdir -p /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix
# asuser execs: call it in the background or a subshell, so $! is the program's own pid.
asuser() { exec setpriv --reuid=$uid --regid=$uid --clear-groups env HOME=/home/$user USER=$user DISPLAY=:0 XDG_RUNTIME_DIR=/run/user/$uid "$@"; }
agentport=$(port org.glovebox.agent.0)
[ -n "$agentport" ] && chown $uid "$agentport"
chmod 0777 /shared 2>/dev/null

# The agent first, restarted whenever it exits (its pid in /run/gb-agent.pid): it serves at once and attaches
# the desktop backends as soon as Xvfb is up, so the broker reaches it while X is still starting.
(
	while :; do
		asuser "$build/glovebox-agent" -listen serial:///dev/virtio-ports/org.glovebox.agent.0 \
			-listen vsock://:7005 -allow-cid 1 -display :0 >> /shared/agent.log 2>&1 &
		echo $! > /run/gb-agent.pid
		wait $!
		sleep 0.1
	done
) &
mark agent-started

asuser Xvfb :0 -screen 0 1280x800x24 -nolisten tcp -noreset -extension GLX > /tmp/xvfb.log 2>&1 &
while [ ! -S /tmp/.X11-unix/X0 ]; do sleep 0.02; done
mark xvfb

asuser "$build/glovebox-agent" -listen vsock://:7006 -display :0 > /tmp/agent-default-cid.log 2>&1 &
asuser "$build/guestprobe" -wait vsock://1:7005 > /dev/ttyS0 2>&1 &

asuser openbox > /tmp/openbox.log 2>&1 &
asuser xsetroot -solid "#ff00ff" &
# The apps whose own output the test reads back from /shared: what xterm's cat receives, and xev's events.
asuser xterm -geometry 80x8+0+0 -T typebox -e sh -c 'exec cat > /shared/typed.txt' > /dev/null 2>&1 &
asuser stdbuf -oL xev -geometry 300x200+800+500 -name clickbox -event button > /shared/xev.txt 2>/dev/null &
mark desktop

# The test's root shell: one command stream per host connection.
ctl=$(port org.glovebox.test.ctl)
if [ -n "$ctl" ]; then
	while :; do
		sh 0<>"$ctl" 1>&0 2>&0
		sleep 0.2
	done &
fi
# ACCESSIBILITY / BROWSER: the AT-SPI bus and Chromium start here once those issues land (see tests/vm).
while :; do wait; sleep 1; done
