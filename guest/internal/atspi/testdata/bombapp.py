#!/usr/bin/python3
"""Test application that exits the moment an accessibility client reads the text of its "bomb" label, between
200 labels before it and 200 after: an app that leaves in the middle of a snapshot. Prints "ready" once shown.

Usage: bombapp.py PRGNAME. Run with /usr/bin/python3 (python3-gi).
"""
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Atk", "1.0")
from gi.repository import Atk, GLib, Gtk  # noqa: E402


class BombAccessible(Atk.Object, Atk.Text):
    """A label's accessible whose text read ends the process at once, mid-answer, as a crash would."""

    def do_get_text(self, start, end):
        os._exit(0)

    def do_get_character_count(self):
        return 4


class Bomb(Gtk.Label):
    def do_get_accessible(self):
        if not hasattr(self, "_acc"):
            self._acc = BombAccessible()
            self._acc.set_role(Atk.Role.LABEL)
            self._acc.set_name("bomb")
            self._acc.set_parent(self.get_parent().get_accessible())
        return self._acc


def main():
    GLib.set_prgname(sys.argv[1] if len(sys.argv) > 1 else "bombapp")
    win = Gtk.Window(title="Bomb")
    win.connect("destroy", Gtk.main_quit)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    win.add(box)
    for i in range(200):
        box.pack_start(Gtk.Label(label="label %d" % i), False, False, 0)
    box.pack_start(Bomb(label="bomb"), False, False, 0)
    for i in range(200):
        box.pack_start(Gtk.Label(label="after %d" % i), False, False, 0)
    win.show_all()
    GLib.timeout_add(300, lambda: print("ready", flush=True) or False)
    Gtk.main()


if __name__ == "__main__":
    main()
