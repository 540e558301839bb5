#!/usr/bin/python3
"""A GTK window for the effects tests: a button (the window's full width, at least its upper 150 rows) and an
entry below it. It prints, with the wall-clock time in nanoseconds, every click on the button
("click <n> <time_ns>") and every change of the entry's text ("text <text> <time_ns>"), so a test sees what
landed and when without asking the agent."""
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

title = sys.argv[1] if len(sys.argv) > 1 else "gb-effects"
win = Gtk.Window(title=title)
win.set_default_size(300, 200)
win.move(100, 100)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=0)
button = Gtk.Button(label="press me")
button.set_size_request(300, 150)
entry = Gtk.Entry()
box.pack_start(button, True, True, 0)
box.pack_start(entry, False, False, 0)
win.add(box)
clicks = [0]


def clicked(_):
    clicks[0] += 1
    print("click %d %d" % (clicks[0], time.time_ns()), flush=True)
    button.set_label("pressed %d" % clicks[0])


def changed(_):
    print("text %s %d" % (entry.get_text(), time.time_ns()), flush=True)


button.connect("clicked", clicked)
entry.connect("changed", changed)
win.connect("destroy", Gtk.main_quit)
win.show_all()
print("ready", flush=True)
Gtk.main()
