#!/usr/bin/python3
"""A GTK window with one button, for the recording replay tests.

usage: recapp.py LABEL WIDTH HEIGHT [framed]
The program name is "recapp" whatever the layout. "framed" puts the button inside a frame (another path from
the window's root). Prints "ready" once shown and "clicked: LABEL" on each click.
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(*parts):
    print(*parts, flush=True)


def main():
    label, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    framed = len(sys.argv) > 4 and sys.argv[4] == "framed"
    GLib.set_prgname("recapp")
    win = Gtk.Window(title="Recorded app")
    win.set_default_size(width, height)
    win.connect("destroy", Gtk.main_quit)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    win.add(box)
    box.pack_start(Gtk.Label(label="Top of the window"), False, False, 0)
    button = Gtk.Button(label=label)
    button.connect("clicked", lambda *_: say("clicked: " + label))
    if framed:
        frame = Gtk.Frame(label="Actions")
        frame.add(button)
        box.pack_end(frame, False, False, 0)
    else:
        box.pack_start(button, False, False, 0)
    win.show_all()
    GLib.timeout_add(300, lambda: say("ready") or False)
    Gtk.main()


if __name__ == "__main__":
    main()
