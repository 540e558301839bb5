#!/usr/bin/python3
"""A GTK window of one solid colour: colorwin.py TITLE COLOR X Y WIDTH HEIGHT. Prints "mapped" once shown."""
import sys
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, Gdk, GLib

title, color, x, y, w, h = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
css = Gtk.CssProvider()
css.load_from_data(("window { background-color: %s; }" % color).encode())
Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
win = Gtk.Window(title=title)
win.set_wmclass("glovebox-color", "GloveboxColor")
win.set_default_size(w, h)
win.move(x, y)
win.connect("destroy", Gtk.main_quit)
def mapped(*_):
    GLib.timeout_add(50, lambda: (print("mapped", flush=True), False)[1])
win.connect("map-event", mapped)
win.show_all()
Gtk.main()
