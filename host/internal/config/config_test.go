package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const minimal = `{"audit":{"dir":"/var/lib/glovebox/audit"},"principals":[{"name":"ci","uids":[1000],"guests":["*"]}]}`

func TestDefaults(t *testing.T) {
	c, err := Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.Listen, time.Duration(c.GuestCallTimeout), time.Duration(c.Sessions.IdleTimeout), c.Policy.ConfirmButtons, *c.Policy.ConfirmSecrets, c.Principals[0].RatePerSecond}
	want := []any{[]string{DefaultListen}, DefaultGuestCallTimeout, DefaultIdleTimeout, []string{"right", "middle"}, true, float64(DefaultRatePerSecond)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"unknown field", `{"audit":{"dir":"/a","bogus":1}}`, `unknown field "bogus"`},
		{"wrong type", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":["x"]}]}`, "principals.uids"},
		{"tcp without tls", `{"listen":["tcp://127.0.0.1:1"],"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}]}`, "tls: required"},
		{"bad listen", `{"listen":["http://x"],"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}]}`, "listen[0]"},
		{"no principals", `{"audit":{"dir":"/a"}}`, "principals: at least one"},
		{"no audit dir", `{"principals":[{"name":"p","uids":[1]}]}`, "audit.dir: required"},
		{"duplicate uid", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]},{"name":"q","uids":[1]}]}`, "principals[1].uids[0]"},
		{"bad guest name", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"guests":[{"name":"Bad_Name","endpoint":"unix:///x"}]}`, "guests[0].name"},
		{"bad button", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"policy":{"confirm_buttons":["up"]}}`, "policy.confirm_buttons[0]"},
		{"metrics not loopback", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"metrics_listen":"0.0.0.0:9000"}`, "metrics_listen"},
		{"mcp not loopback without tls", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"mcp":{"listen":"0.0.0.0:7443"}}`, `mcp.listen: "0.0.0.0" is not a loopback address`},
		{"mcp tls without the broker's certificate", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"mcp":{"listen":"127.0.0.1:7443","tls":true}}`, "mcp.tls: needs the broker's tls.cert and tls.key"},
		{"mcp public address without tls", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"mcp":{"listen":"192.0.2.7:7443"}}`, `mcp.listen: "192.0.2.7" is not a loopback address: plain HTTP only on loopback`},
		{"mcp bad listen", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"mcp":{"listen":"7443"}}`, "mcp.listen: want host:port"},
		{"mcp bad model", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"mcp":{"listen":"127.0.0.1:0","model":"big"}}`, "mcp.model: want WxH"},
		{"mcp observe out of range", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"mcp":{"listen":"127.0.0.1:0","observe_ms":-1}}`, "mcp.observe_ms: must be 0..5000"},
		{"bad duration", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"guest_call_timeout":"soon"}`, `guest_call_timeout: want a duration string like "10s", got "soon" (time: invalid duration`},
		{"bad duration unit", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"sessions":{"idle_timeout":"10x"}}`, `sessions.idle_timeout: want a duration`},
		{"duration not a string", `{"audit":{"dir":"/a"},"principals":[{"name":"p","uids":[1]}],"sessions":{"ttl":5}}`, `sessions.ttl: want a duration string like "10s", got 5`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
