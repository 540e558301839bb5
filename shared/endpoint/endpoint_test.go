package endpoint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		uri  string
		want Endpoint
		str  string // String(); empty means uri
	}{
		{"vsock://2:1024", Endpoint{Scheme: "vsock", CID: 2, Port: 1024}, ""},
		{"vsock://:1024", Endpoint{Scheme: "vsock", CID: AnyCID, Port: 1024}, ""},
		{"vsock://any:1024", Endpoint{Scheme: "vsock", CID: AnyCID, Port: 1024}, "vsock://:1024"},
		{"vsock://-1:52", Endpoint{Scheme: "vsock", CID: AnyCID, Port: 52}, "vsock://:52"},
		{"vsock://4294967294:4294967294", Endpoint{Scheme: "vsock", CID: 4294967294, Port: 4294967294}, ""},
		{"unix:///run/glovebox/agent.sock", Endpoint{Scheme: "unix", Path: "/run/glovebox/agent.sock"}, ""},
		{"tcp://127.0.0.1:7000", Endpoint{Scheme: "tcp", Host: "127.0.0.1", Port: 7000}, ""},
		{"tcp://localhost:0", Endpoint{Scheme: "tcp", Host: "localhost", Port: 0}, ""},
		{"tcp://[::1]:7000", Endpoint{Scheme: "tcp", Host: "::1", Port: 7000}, ""},
		{"tcp://0.0.0.0:7000", Endpoint{Scheme: "tcp", Host: "0.0.0.0", Port: 7000}, ""},
		{"serial:///dev/virtio-ports/glovebox", Endpoint{Scheme: "serial", Path: "/dev/virtio-ports/glovebox"}, ""},
		{"hvsock:///var/lib/fc/v.sock:1024", Endpoint{Scheme: "hvsock", Path: "/var/lib/fc/v.sock", Port: 1024}, ""},
		{"serial+unix:///run/qemu/vm1/agent.sock", Endpoint{Scheme: "serial+unix", Path: "/run/qemu/vm1/agent.sock"}, ""},
	}
	for _, tt := range tests {
		got, err := Parse(tt.uri)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.uri, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.uri, diff)
		}
		str := tt.str
		if str == "" {
			str = tt.uri
		}
		if got.String() != str {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.uri, got.String(), str)
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("Parse(%q) does not round trip: %v, %v", got.String(), again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		uri  string
		want string // substring of the error
	}{
		{"", "want scheme://address"},
		{"/run/agent.sock", "want scheme://address"},
		{"http://x:1", `unknown scheme "http"`},
		{"vsock://2", "want vsock://CID:PORT"},
		{"vsock://2:0", `bad port "0"`},
		{"vsock://2:4294967295", `bad port "4294967295"`},
		{"vsock://2:x", `bad port "x"`},
		{"vsock://host:1024", `bad CID "host"`},
		{"vsock://4294967295:1024", `bad CID "4294967295"`},
		{"vsock://2:1024/x", "want vsock://CID:PORT"},
		{"unix://relative.sock", "want an absolute path: unix:///path"},
		{"unix:///run/../etc/x", "not a clean file path"},
		{"unix:///", "not a clean file path"},
		{"unix:///run/x.sock?mode=1", "holds NUL, '?' or '#'"},
		{"tcp://127.0.0.1", "want tcp://host:port"},
		{"tcp://:7000", "no host"},
		{"tcp://127.0.0.1:70000", `bad port "70000"`},
		{"tcp://127.0.0.1:7000/path", "no path, query or user"},
		{"tcp://user@127.0.0.1:7000", "no path, query or user"},
		{"serial://ttyS0", "want an absolute path: serial:///path"},
		{"hvsock:///v.sock", "want hvsock:///path/to/v.sock:PORT"},
		{"hvsock:///v.sock:0", `bad port "0"`},
		{"hvsock://v.sock:5", "want hvsock:///path/to/v.sock:PORT"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.uri)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.uri) {
			t.Errorf("Parse(%q) = %v, want an error naming the URI and containing %q", tt.uri, err, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"vsock://2:1024", "vsock://:1", "unix:///a/b", "tcp://[::1]:0", "serial:///dev/x", "serial+unix:///a/b", "hvsock:///a:1", "tcp://a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(e.String())
		if err != nil || again != e {
			t.Fatalf("Parse(%q) = %+v; String %q parses to %+v, %v", s, e, e.String(), again, err)
		}
	})
}
