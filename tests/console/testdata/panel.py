#!/usr/bin/env python3
"""A GTK window for the console tests and benchmark, reporting one JSON line per event on stdout: "clicked"
when its button is pressed (which also flips the colour of the large area below it, so a click shows on the
screen), and the entry's text when Return is pressed in it."""
import json
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402


def out(**kw):
    print(json.dumps(kw, ensure_ascii=False), flush=True)


def main():
    title = sys.argv[1] if len(sys.argv) > 1 else "console-panel"
    x, y = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (600, 60)
    settings = Gtk.Settings.get_default()
    settings.set_property("gtk-cursor-blink", False)  # a blinking caret would repaint the screen forever
    win = Gtk.Window(title=title)
    win.set_default_size(560, 520)
    win.move(x, y)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    button = Gtk.Button(label="Press")
    entry = Gtk.Entry()
    # A plain widget whose background is the colour (no cairo: Debian's python3-gi has no cairo converter).
    area = Gtk.EventBox()
    area.set_size_request(540, 400)
    state = {"n": 0}

    def paint():
        red = state["n"] % 2 == 0
        area.override_background_color(Gtk.StateFlags.NORMAL, Gdk.RGBA(0.85 if red else 0.1, 0.1, 0.1 if red else 0.85, 1))

    def clicked(_b):
        state["n"] += 1
        out(ev="clicked", n=state["n"])
        paint()

    def activate(e):
        out(ev="text", text=e.get_text())
        e.set_text("")

    paint()
    button.connect("clicked", clicked)
    entry.connect("activate", activate)
    box.pack_start(button, False, False, 0)
    box.pack_start(entry, False, False, 0)
    box.pack_start(area, True, True, 0)
    win.add(box)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    entry.grab_focus()
    out(ev="ready")
    Gtk.main()


if __name__ == "__main__":
    main()
