#!/usr/bin/python3
"""The QEMU test guest's accessibility app: one window with one button. It prints "ready" once shown and
"button clicked" on every click, one line each (flushed), so the test reads the click back from the app's own
output. Run with /usr/bin/python3 (python3-gi) on the session bus whose AT-SPI bus the agent uses."""

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(line):
    print(line, flush=True)


GLib.set_prgname("clickme")
win = Gtk.Window(title="clickme")
win.set_default_size(240, 120)
win.move(400, 300)
win.connect("destroy", Gtk.main_quit)
button = Gtk.Button(label="Press me")
button.connect("clicked", lambda b: say("button clicked"))
win.add(button)
win.show_all()
GLib.idle_add(lambda: say("ready") or False)
Gtk.main()
