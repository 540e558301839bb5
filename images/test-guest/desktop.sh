#!/bin/sh
# Runs as PID 1 inside the test guest's root (a tmpfs with the host's top-level directories as read-only
# overlays), after init.sh created the desktop user and started glovebox-agent (virtio-serial port
# org.glovebox.agent.0 and vsock port 7005 allowing CID 1, restarted when it exits) and Xvfb :0: paints the
# root, starts openbox and the test apps, a second agent on vsock port 7006 with the default CID check (for
# the in-guest vsock test), and a root shell on the port org.glovebox.test.ctl for the QEMU test. Timing
# markers go to the serial console.
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
# The desktop user (init.sh created it and started the agent on the ports).
user=gbdesk uid=4242
# asuser execs: call it in the background or a subshell, so $! is the program's own pid.
# /run/gb/asuser is init's static helper (setpriv and env would be read over 9p).
# The session bus is at a fixed path: init.sh gave the agent this address before the bus existed.
bus=unix:path=/run/user/$uid/bus
asuser() { HOME=/home/$user USER=$user DISPLAY=:0 XDG_RUNTIME_DIR=/run/user/$uid DBUS_SESSION_BUS_ADDRESS=$bus exec /run/gb/asuser $uid "$@"; }

# Xvfb (init.sh started it) creates its socket early in its start.
while [ ! -S /tmp/.X11-unix/X0 ]; do sleep 0.02; done
mark xvfb
# The root painted first and alone: xsetroot returns once the server (still initialising when its socket
# appears) has served it. Under TCG every program start costs ~0.2-1 s of the two vCPUs; the window manager,
# the apps and the vsock programs started meanwhile would delay the X server and the desktop's first
# screenshot.
(asuser xsetroot -solid "#ff00ff")
mark root-painted
# The agent's log (init.sh started it before /shared was mounted), for the test to show when it fails.
tail -n +1 -F /run/agent.log >> /shared/agent.log 2>/dev/null &

asuser openbox > /tmp/openbox.log 2>&1 &
# The apps whose own output the test reads back from /shared: what xterm's cat receives, and xev's events.
asuser xterm -geometry 80x8+0+0 -T typebox -e sh -c 'exec cat > /shared/typed.txt' > /dev/null 2>&1 &
asuser stdbuf -oL xev -geometry 300x200+800+500 -name clickbox -event button > /shared/xev.txt 2>/dev/null &
mark desktop

asuser /run/gb/glovebox-agent -listen vsock://:7006 -display :0 > /tmp/agent-default-cid.log 2>&1 &
asuser "$build/guestprobe" -wait vsock://1:7005 > /dev/ttyS0 2>&1 &

# The test's root shell: one command stream per host connection.
ctl=$(port org.glovebox.test.ctl)
if [ -n "$ctl" ]; then
	while :; do
		sh 0<>"$ctl" 1>&0 2>&0
		sleep 0.2
	done &
fi
# Accessibility, started when the test asks for it (a line written to the fifo /run/gb-a11y-go): the session
# bus, the AT-SPI bus launcher with org.a11y.Status.IsEnabled set, the registry, then the test's GTK app (its
# output in /shared). Starting it during boot competed with the first screenshot for the two CPUs.
mkfifo /run/gb-a11y-go
(
	read -r _ < /run/gb-a11y-go
	# The session bus; a daemon that exits before its socket is there is started again (its log goes to the
	# console, which the test prints when it fails).
	for attempt in 1 2 3; do
		asuser dbus-daemon --session --nofork --address=$bus > /tmp/dbus.log 2>&1 &
		dbus=$!
		while [ ! -S /run/user/$uid/bus ] && kill -0 $dbus 2> /dev/null; do sleep 0.05; done
		[ -S /run/user/$uid/bus ] && break
		echo "session bus attempt $attempt exited: $(cat /tmp/dbus.log)" > /dev/ttyS0
	done
	asuser /usr/libexec/at-spi-bus-launcher --launch-immediately > /tmp/at-spi-bus.log 2>&1 &
	i=0
	until (asuser dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress > /dev/null 2>&1); do
		i=$((i + 1))
		[ $i -gt 300 ] && { echo "no org.a11y.Bus" > /dev/ttyS0; exit 1; }
		sleep 0.1
	done
	(asuser dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.freedesktop.DBus.Properties.Set \
		string:org.a11y.Status string:IsEnabled variant:boolean:true > /dev/null)
	asuser /usr/libexec/at-spi2-registryd > /tmp/at-spi-registry.log 2>&1 &
	mark a11y-bus
	asuser /usr/bin/python3 "$here/clickme.py" > /shared/clickme.txt 2>&1 &
	wait
) &
# Niced (its children too): the rest of the desktop must not wait for the accessibility stack.
renice -n 10 -p $! > /dev/null
while :; do wait; sleep 1; done
