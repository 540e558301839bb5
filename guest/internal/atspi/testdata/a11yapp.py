#!/usr/bin/python3
"""Test application for the AT-SPI backend: an entry, a text view, a button, a check box, a slider, a menu and
a second window. It prints every state change on stdout, one line each, so tests verify actions through the
application's own output rather than through the agent's answer:

    ready
    button clicked
    entry: <text>
    textview: <text>
    check: on|off
    scale: <value>
    menu: <item>
    focus: <widget name>
    selection: <start> <end>
    closed: <window title>

Usage: a11yapp.py PRGNAME [TITLE]. Reading "close" on stdin destroys the second window.
Run with /usr/bin/python3 (python3-gi).
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(*parts):
    print(*parts, flush=True)


def main():
    prgname = sys.argv[1] if len(sys.argv) > 1 else "a11yapp"
    title = sys.argv[2] if len(sys.argv) > 2 else "A11y Test"
    GLib.set_prgname(prgname)
    win = Gtk.Window(title=title)
    win.set_default_size(600, 420)
    win.move(20, 20)
    win.connect("destroy", Gtk.main_quit)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    win.add(box)

    menubar = Gtk.MenuBar()
    file_item = Gtk.MenuItem(label="File")
    menu = Gtk.Menu()
    hello = Gtk.MenuItem(label="Hello")
    hello.connect("activate", lambda w: say("menu: Hello"))
    menu.append(hello)
    file_item.set_submenu(menu)
    menubar.append(file_item)
    box.pack_start(menubar, False, False, 0)

    entry = Gtk.Entry(name="entry")
    entry.set_text("hello world")
    entry.connect("changed", lambda e: say("entry:", e.get_text()))
    entry.connect("focus-in-event", lambda w, e: say("focus: entry") or False)
    box.pack_start(entry, False, False, 0)

    def bounds_changed(buf, *args):
        if buf.get_has_selection():
            s, e = buf.get_selection_bounds()
            say("selection:", s.get_offset(), e.get_offset())

    view = Gtk.TextView(name="textview")
    buf = view.get_buffer()
    buf.set_text("one two three two one")
    buf.connect("changed", lambda b: say("textview:", b.get_text(b.get_start_iter(), b.get_end_iter(), False)))
    buf.connect("mark-set", lambda b, it, mark: mark.get_name() == "selection_bound" and bounds_changed(b))
    view.set_size_request(-1, 80)
    box.pack_start(view, False, False, 0)

    button = Gtk.Button(label="Press me")
    button.connect("clicked", lambda b: say("button clicked"))
    box.pack_start(button, False, False, 0)

    check = Gtk.CheckButton(label="Enable feature")
    check.connect("toggled", lambda c: say("check:", "on" if c.get_active() else "off"))
    box.pack_start(check, False, False, 0)

    scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
    scale.set_value(10)
    scale.connect("value-changed", lambda s: say("scale:", "%g" % s.get_value()))
    box.pack_start(scale, False, False, 0)

    label = Gtk.Label(label="Just a label")
    box.pack_start(label, False, False, 0)

    second = Gtk.Window(title="Second")
    second.set_default_size(240, 100)
    second.move(700, 20)
    second.add(Gtk.Button(label="Second button"))

    def on_stdin(source, cond):
        line = source.readline()
        if not line:
            return False
        if line.strip() == "close" and second.get_visible():
            second.destroy()
            say("closed: Second")
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
    win.show_all()
    second.show_all()
    GLib.timeout_add(300, lambda: say("ready") or False)
    Gtk.main()


if __name__ == "__main__":
    main()
