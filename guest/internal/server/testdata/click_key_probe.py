#!/usr/bin/env python3
"""A GTK window with an entry and a button that reports, one JSON line per event on stdout, the order in which
it received button presses and releases, key presses and focus changes on its entry, and the entry's text after
every change. Reading "blur" on stdin moves the focus to the button and answers {"ev": "blurred"}; "set TEXT"
sets the entry's text and answers {"ev": "set"}. Tests read these lines to check that keys sent after a click
reach the entry after the click."""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def out(**kw):
    print(json.dumps(kw), flush=True)


def main():
    title = sys.argv[1] if len(sys.argv) > 1 else "click-key-probe"
    win = Gtk.Window(title=title)
    win.set_default_size(400, 120)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    entry = Gtk.Entry()
    button = Gtk.Button(label="elsewhere")
    quiet = [False]

    def changed(e):
        if not quiet[0]:
            out(ev="text", text=e.get_text())

    def key(_w, e):
        out(ev="key", name=Gdk.keyval_name(e.keyval) or "", state=int(e.state), time=e.time)
        return False

    def button_ev(_w, e):
        kind = "press" if e.type == Gdk.EventType.BUTTON_PRESS else "release"
        out(ev=kind, button=e.button, time=e.time)
        return False

    entry.connect("changed", changed)
    entry.connect("key-press-event", key)
    entry.connect("button-press-event", button_ev)
    entry.connect("button-release-event", button_ev)
    entry.connect("focus-in-event", lambda *_: out(ev="focus-in") or False)
    entry.connect("focus-out-event", lambda *_: out(ev="focus-out") or False)
    box.pack_start(entry, False, False, 0)
    box.pack_start(button, True, True, 0)
    win.add(box)
    win.connect("destroy", Gtk.main_quit)

    def on_stdin(_src, _cond):
        line = sys.stdin.readline()
        if not line:
            return False
        cmd = line.rstrip("\n")
        if cmd == "blur":
            button.grab_focus()
            out(ev="blurred")
        elif cmd.startswith("set "):
            quiet[0] = True
            entry.set_text(cmd[4:])
            quiet[0] = False
            out(ev="set")
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
    win.show_all()
    button.grab_focus()
    out(ev="ready")
    Gtk.main()


main()
