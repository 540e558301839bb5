#!/usr/bin/python3
"""GTK test application for the MCP tests. It prints what happened to it on stdout, one line each, so tests check
effects through the application's own output rather than through Glovebox's answers:

    geometry pad X Y W H        root coordinates of the click pad (once it is mapped and placed)
    geometry entry X Y W H
    geometry scroll X Y W H
    press X Y                   a button press on the pad, in root coordinates
    entry: TEXT                 the entry's text after every change
    button clicked
    scroll: VALUE               the scrolled window's vertical position after every change

Usage: mcpapp.py PRGNAME. Reading "hide" on stdin destroys the button (its refs go stale).
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(*parts):
    print(*parts, flush=True)


def main():
    GLib.set_prgname(sys.argv[1] if len(sys.argv) > 1 else "mcpapp")
    win = Gtk.Window(title="MCP Test")
    win.set_default_size(700, 600)
    win.move(40, 40)
    win.connect("destroy", Gtk.main_quit)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    win.add(box)

    entry = Gtk.Entry(name="entry")
    entry.connect("changed", lambda e: say("entry:", e.get_text()))
    box.pack_start(entry, False, False, 0)

    button = Gtk.Button(label="Press me")
    button.connect("clicked", lambda b: say("button clicked"))
    box.pack_start(button, False, False, 0)

    pad = Gtk.EventBox(name="pad")
    pad.set_size_request(-1, 150)
    pad.add(Gtk.Label(label="click pad"))
    pad.connect("button-press-event", lambda w, e: say("press %d %d" % (int(e.x_root), int(e.y_root))) or True)
    box.pack_start(pad, False, False, 0)

    scroll = Gtk.ScrolledWindow(name="scroll")
    scroll.set_size_request(-1, 200)
    inner = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    for i in range(200):
        inner.pack_start(Gtk.Label(label="line %d" % i), False, False, 0)
    scroll.add(inner)
    scroll.get_vadjustment().connect("value-changed", lambda a: say("scroll: %d" % int(a.get_value())))
    box.pack_start(scroll, True, True, 0)

    def report():
        for name, w in (("pad", pad), ("entry", entry), ("scroll", scroll)):
            gw = w.get_window()
            if gw is None:
                return True
            _, x, y = gw.get_origin()
            a = w.get_allocation()
            if not w.get_has_window():
                x, y = x + a.x, y + a.y
            say("geometry %s %d %d %d %d" % (name, x, y, a.width, a.height))
        return False

    def on_stdin(src, cond):
        line = sys.stdin.readline()
        if line.strip() == "hide":
            button.destroy()
        return bool(line)

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
    win.show_all()
    # The window manager places the window after it is mapped; report once placement settled.
    GLib.timeout_add(700, report)
    Gtk.main()


main()
