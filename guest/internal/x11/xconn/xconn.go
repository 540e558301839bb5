// Package xconn opens X connections for every backend of the agent, with the X extensions it uses ready,
// without the data race jezek/xgb's extension Init functions cause when a process holds several connections.
//
// Each generated ext.Init (xfixes.Init, damage.Init, shm.Init, xtest.Init, ...) asks the server for the
// extension, records its major opcode in that connection's Extensions map, and then writes the
// extension's event and error constructors into the package-global maps xgb.NewEventFuncs and
// xgb.NewErrorFuncs, keyed by the event and error bases the server assigned. Every open connection's reader
// goroutine reads those maps for each event or error it receives. So an Init on a second connection,
// while the first one is receiving events, is a concurrent map write and read: `go test -race` reports it,
// and in production it can abort the agent with "concurrent map read and map write" while the backends
// start (the agent opens four connections: windows, screen, input, clipboard).
//
// Open avoids it: the globals are written once, before any connection of the process can read them. The
// first Open asks the server for every extension on a bootstrap connection that is closed, and whose reader
// goroutine has ended, before the globals are written; later connections only ask QueryExtension and fill
// their own Extensions map under their ExtLock, which is the per-connection half of Init. Since the event
// and error bases are the server's, they are the same for every connection to it. All X connections of the
// process must be opened through this package (including tests' own connections): one opened with
// xgb.NewConnDisplay while the globals are written would race again. No code calls ext.Init.
package xconn

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	// Imported for their init functions, which register the event and error constructors of each
	// extension in xgb.NewExtEventFuncs / NewExtErrorFuncs, the tables the globals are filled from.
	_ "github.com/jezek/xgb/damage"
	_ "github.com/jezek/xgb/shm"
	_ "github.com/jezek/xgb/xfixes"
	_ "github.com/jezek/xgb/xinerama"
	_ "github.com/jezek/xgb/xtest"
)

// Extension names, as the X server and xgb's Extensions map spell them.
const (
	XFixes   = "XFIXES"
	Damage   = "DAMAGE"
	Shm      = "MIT-SHM"
	XTest    = "XTEST"
	Xinerama = "XINERAMA"
)

// extensions are those the agent uses: XFIXES (cursor image), DAMAGE (change detection), MIT-SHM
// (capture), XTEST (input), XINERAMA (monitors).
var extensions = []string{XFixes, Damage, Shm, XTest, Xinerama}

var (
	// mu serializes Open, so no connection starts reading while the globals are written.
	mu sync.Mutex
	// registered is set once the globals hold every extension the server has; bases are where they were
	// registered (event base, error base), which every later connection's server must agree with.
	registered bool
	bases      map[string][2]int
	// logOut is where xgb's own log goes; see SetLogger.
	logOut atomic.Pointer[slog.Logger]
)

// Open connects to the X display (empty: $DISPLAY) and makes every extension of the agent that the server
// has usable on the connection. A missing extension is not an error here: Require says whether one is
// there.
func Open(display string) (*xgb.Conn, error) {
	mu.Lock()
	defer mu.Unlock()
	if !registered {
		if err := register(display); err != nil {
			return nil, err
		}
		registered = true
	}
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("connect to X display %q: %w", display, err)
	}
	found, err := query(c)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.ExtLock.Lock()
	defer c.ExtLock.Unlock()
	for name, r := range found {
		// The globals decode events by number for every connection: a server numbering an extension
		// differently (another X server build in the same process) would get its events misread.
		// An extension the first server lacked has no constructors registered: it stays unusable here.
		b, ok := bases[name]
		if !ok {
			continue
		}
		if b != [2]int{int(r.FirstEvent), int(r.FirstError)} {
			c.Close()
			return nil, fmt.Errorf("X display %q: extension %s numbered unlike the first X server of this process", display, name)
		}
		c.Extensions[name] = r.MajorOpcode
	}
	return c, nil
}

// Require returns an error unless the extension is present on c (opened by Open). Requests of a missing
// extension would panic in xgb, so each backend checks the ones it uses.
func Require(c *xgb.Conn, name string) error {
	c.ExtLock.RLock()
	_, ok := c.Extensions[name]
	c.ExtLock.RUnlock()
	if !ok {
		return fmt.Errorf("X server has no %s extension", name)
	}
	return nil
}

// SetLogger sends xgb's log (unrecoverable connection errors, unknown events) to log at debug level. It
// may be called at any time: xgb's package-level logger is set once, before the first connection, and
// only the destination behind it changes.
func SetLogger(log *slog.Logger) { logOut.Store(log) }

// logWriter is the destination of xgb.Logger.
type logWriter struct{}

func (logWriter) Write(p []byte) (int, error) {
	if l := logOut.Load(); l != nil {
		l.Log(context.Background(), slog.LevelDebug, strings.TrimSpace(string(p)), "source", "xgb")
	}
	return len(p), nil
}

// register queries the extensions on a bootstrap connection, closes it and waits for its reader goroutine
// to finish, then writes the globals exactly as each extension's Init does. mu is held, and no other
// connection of the process exists yet, so nothing reads the globals meanwhile.
func register(display string) error {
	xgb.Logger = log.New(logWriter{}, "", 0)
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return fmt.Errorf("connect to X display %q: %w", display, err)
	}
	found, qerr := query(c)
	c.Close()
	// WaitForEvent returns nil, nil once the reader has closed its event channel, on its way out: after
	// that it reads no global.
	for {
		ev, xerr := c.WaitForEvent()
		if ev == nil && xerr == nil {
			break
		}
	}
	if qerr != nil {
		return qerr
	}
	bases = map[string][2]int{}
	for name, r := range found {
		bases[name] = [2]int{int(r.FirstEvent), int(r.FirstError)}
		for n, fn := range xgb.NewExtEventFuncs[name] {
			xgb.NewEventFuncs[int(r.FirstEvent)+n] = fn
		}
		for n, fn := range xgb.NewExtErrorFuncs[name] {
			xgb.NewErrorFuncs[int(r.FirstError)+n] = fn
		}
	}
	return nil
}

// query asks the server for every extension of the agent in one round trip and returns those present.
func query(c *xgb.Conn) (map[string]*xproto.QueryExtensionReply, error) {
	cookies := make([]xproto.QueryExtensionCookie, len(extensions))
	for i, name := range extensions {
		cookies[i] = xproto.QueryExtension(c, uint16(len(name)), name)
	}
	found := map[string]*xproto.QueryExtensionReply{}
	var err error
	for i, ck := range cookies {
		r, e := ck.Reply()
		if e != nil {
			if err == nil {
				err = fmt.Errorf("query extension %s: %w", extensions[i], e)
			}
			continue
		}
		if r.Present {
			found[extensions[i]] = r
		}
	}
	return found, err
}

// DiscardEvents reads and drops every event and error c receives until it is closed. xgb keeps events for
// WaitForEvent in a channel of bounded size; when a connection that nobody reads events from has that many
// waiting, its reader stops and no reply on the connection ever arrives. Every client receives MappingNotify,
// and a burst of keymap changes (xdotool typing characters missing from the keymap) sends thousands, so a
// connection that only makes requests (a test's observer) must call it.
func DiscardEvents(c *xgb.Conn) {
	go func() {
		for {
			if ev, err := c.WaitForEvent(); ev == nil && err == nil {
				return
			}
		}
	}()
}

// maxRootString bounds a root window string property read by RootString, in 4-byte units (a D-Bus address is
// well under a kilobyte).
const maxRootString = 1024

// RootString reads a STRING (or UTF8_STRING) property of the display's root window, as libatspi reads
// AT_SPI_BUS; "" when the property is not set.
func RootString(display, name string) (string, error) {
	c, err := Open(display)
	if err != nil {
		return "", err
	}
	defer c.Close()
	atom, err := xproto.InternAtom(c, true, uint16(len(name)), name).Reply()
	if err != nil {
		return "", fmt.Errorf("X display %q: intern %s: %w", display, name, err)
	}
	if atom.Atom == xproto.AtomNone {
		return "", nil
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	r, err := xproto.GetProperty(c, false, root, atom.Atom, xproto.GetPropertyTypeAny, 0, maxRootString).Reply()
	if err != nil {
		return "", fmt.Errorf("X display %q: root property %s: %w", display, name, err)
	}
	if r.Format != 8 {
		return "", nil
	}
	return string(r.Value), nil
}
