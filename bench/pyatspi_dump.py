#!/usr/bin/python3
"""OSWorld-style AT-SPI tree dump with pyatspi: the peer of glovebox's SnapshotApp in the benchmarks.

For every node, recursively: name, role, states, attributes, extents, text and value, the way OSWorld's
accessibility-tree server (desktop_env/server/main.py, _create_atspi_node) collects them, serialized to XML.
Run with Debian's /usr/bin/python3 (python3-pyatspi). It reads requests on stdin, one per line:

    dump <pid>      dumps the application with that process id, answers "<nodes> <bytes> <seconds>"

so a benchmark times the dump itself, not the interpreter's start.
"""

import sys
import time
import xml.etree.ElementTree as ET

import pyatspi
from pyatspi import STATE_SHOWING, StateType

MAX_DEPTH = 50
MAX_WIDTH = 1024

_NS = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
    "txt": "https://accessibility.ubuntu.example.org/ns/text",
    "val": "https://accessibility.ubuntu.example.org/ns/value",
}


def node(acc, depth):
    """Builds the XML element of acc and its descendants. Every read is guarded: one node that fails (it went
    away, or the toolkit refuses a call) costs that node's detail, not the dump."""
    try:
        role = acc.getRoleName().replace(" ", "-") or "unknown"
    except Exception:
        role = "unknown"
    attrs = {}
    try:
        states = acc.getState().get_states()
        for st in states:
            attrs["{%s}%s" % (_NS["st"], StateType._enum_lookup[st].split("_", 1)[1].lower())] = "true"
    except Exception:
        pass
    try:
        for k, v in acc.get_attributes().items():
            attrs["{%s}%s" % (_NS["attr"], k)] = v
    except Exception:
        pass
    try:
        comp = acc.queryComponent()
        x, y = comp.getPosition(pyatspi.XY_SCREEN)
        w, h = comp.getSize()
        attrs["{%s}screencoord" % _NS["cp"]] = "(%d, %d)" % (x, y)
        attrs["{%s}size" % _NS["cp"]] = "(%d, %d)" % (w, h)
    except Exception:
        pass
    text = ""
    try:
        t = acc.queryText()
        text = t.getText(0, t.characterCount)
    except Exception:
        pass
    try:
        v = acc.queryValue()
        attrs["{%s}value" % _NS["val"]] = str(v.currentValue)
        attrs["{%s}min" % _NS["val"]] = str(v.minimumValue)
        attrs["{%s}max" % _NS["val"]] = str(v.maximumValue)
    except Exception:
        pass
    try:
        attrs["name"] = acc.name or ""
    except Exception:
        attrs["name"] = ""
    el = ET.Element(role, attrs)
    el.text = text
    count = 1
    if depth < MAX_DEPTH:
        try:
            n_children = acc.childCount
        except Exception:
            n_children = 0
        for i in range(min(n_children, MAX_WIDTH)):
            try:
                child = acc.getChildAtIndex(i)
            except Exception:
                continue
            if child is None:
                continue
            sub, n = node(child, depth + 1)
            el.append(sub)
            count += n
    return el, count


def find(pid):
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is not None and app.get_process_id() == pid:
            return app
    return None


def main():
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 2 or parts[0] != "dump":
            print("error bad request", flush=True)
            continue
        start = time.perf_counter()
        app = find(int(parts[1]))
        if app is None:
            print("error no such app", flush=True)
            continue
        el, n = node(app, 0)
        data = ET.tostring(el, encoding="unicode")
        print("%d %d %.6f" % (n, len(data), time.perf_counter() - start), flush=True)


if __name__ == "__main__":
    main()
