#!/usr/bin/env python3
"""A GTK window that reports, one JSON line per event on stdout, what it received: the entry's text when
Return is pressed in it (then clears it), and the button, motion and scroll events of the area below it,
with their modifier state. Tests read these lines to check input through the application itself."""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402


def out(**kw):
    print(json.dumps(kw), flush=True)


def main():
    title = sys.argv[1] if len(sys.argv) > 1 else "input-probe"
    win = Gtk.Window(title=title)
    win.set_default_size(500, 400)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    entry = Gtk.Entry()

    def activate(e):
        out(ev="text", text=e.get_text())
        e.set_text("")

    entry.connect("activate", activate)
    area = Gtk.EventBox()
    area.set_size_request(500, 360)
    area.add_events(Gdk.EventMask.BUTTON_PRESS_MASK | Gdk.EventMask.BUTTON_RELEASE_MASK
                    | Gdk.EventMask.POINTER_MOTION_MASK | Gdk.EventMask.SCROLL_MASK)

    def button(_w, e):
        kind = {Gdk.EventType.BUTTON_PRESS: "press", Gdk.EventType._2BUTTON_PRESS: "press2",
                Gdk.EventType._3BUTTON_PRESS: "press3", Gdk.EventType.BUTTON_RELEASE: "release"}.get(e.type, str(e.type))
        out(ev=kind, button=e.button, x=int(e.x_root), y=int(e.y_root), state=int(e.state))
        return False

    def motion(_w, e):
        out(ev="motion", x=int(e.x_root), y=int(e.y_root), state=int(e.state))
        return False

    def scroll(_w, e):
        out(ev="scroll", direction=int(e.direction), x=int(e.x_root), y=int(e.y_root), state=int(e.state))
        return False

    area.connect("button-press-event", button)
    area.connect("button-release-event", button)
    area.connect("motion-notify-event", motion)
    area.connect("scroll-event", scroll)
    box.pack_start(entry, False, False, 0)
    box.pack_start(area, True, True, 0)
    win.add(box)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    entry.grab_focus()
    out(ev="ready")
    Gtk.main()


main()
