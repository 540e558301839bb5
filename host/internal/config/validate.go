package config

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"glovebox.dev/shared/endpoint"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/validate"
)

// Guest bounds (the GuestService contract).
const (
	MaxGuestNameBytes  = 64
	MaxLabels          = 32
	MaxLabelKeyBytes   = 63
	MaxLabelValueBytes = 256
)

// confirmableButtons are the button names policy.confirm_buttons accepts.
var confirmableButtons = map[string]bool{"left": true, "right": true, "middle": true, "back": true, "forward": true}

// Listener is a parsed listen endpoint.
type Listener struct {
	// Network is "unix" or "tcp"; Address the socket path or host:port.
	Network, Address string
}

// ParseListen parses a broker listen URI: unix:///absolute/path or tcp://host:port.
func ParseListen(uri string) (Listener, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return Listener{}, fmt.Errorf("not a URI: %v", err)
	}
	switch u.Scheme {
	case "unix":
		if u.Host != "" || !strings.HasPrefix(u.Path, "/") {
			return Listener{}, fmt.Errorf("want unix:///absolute/path, got %q", uri)
		}
		return Listener{Network: "unix", Address: u.Path}, nil
	case "tcp":
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil || u.Path != "" {
			return Listener{}, fmt.Errorf("want tcp://host:port, got %q", uri)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return Listener{}, fmt.Errorf("port %q: want 0..65535", port)
		}
		return Listener{Network: "tcp", Address: net.JoinHostPort(host, port)}, nil
	}
	return Listener{}, fmt.Errorf("scheme %q: want unix or tcp", u.Scheme)
}

// Validate checks every field and returns a *errdefs.BadRequest naming each bad one.
func (c *Config) Validate() error {
	var v errdefs.Violations
	tcp := false
	for i, l := range c.Listen {
		pl, err := ParseListen(l)
		if err != nil {
			v.Addf(fmt.Sprintf("listen[%d]", i), "%v", err)
		}
		tcp = tcp || pl.Network == "tcp"
	}
	switch {
	case tcp && c.TLS == nil:
		v.Addf("tls", "required when a tcp:// listener is configured (nothing starts open)")
	case c.TLS != nil:
		for f, s := range map[string]string{"tls.cert": c.TLS.Cert, "tls.key": c.TLS.Key, "tls.client_ca": c.TLS.ClientCA} {
			if s == "" {
				v.Addf(f, "required")
			}
		}
	}
	if c.Audit.Dir == "" {
		v.Addf("audit.dir", "required")
	}
	c.validateRecording(&v)
	if c.Audit.RotateBytes < 4096 {
		v.Addf("audit.rotate_bytes", "must be at least 4096, got %d", c.Audit.RotateBytes)
	}
	if c.MetricsListen != "" {
		host, _, err := net.SplitHostPort(c.MetricsListen)
		ip := net.ParseIP(host)
		switch {
		case err != nil:
			v.Addf("metrics_listen", "want host:port: %v", err)
		case !c.MetricsAllowNonLoopback && host != "localhost" && (ip == nil || !ip.IsLoopback()):
			v.Addf("metrics_listen", "%q is not a loopback address (set metrics_allow_non_loopback)", host)
		}
	}
	if t := time.Duration(c.Control.IdleTimeout); t < time.Minute || t > 24*time.Hour {
		v.Addf("control.idle_timeout", "must be 1m..24h, got %s", t)
	}
	if l := c.Console.Listen; l != "" {
		host, _, err := net.SplitHostPort(l)
		ip := net.ParseIP(host)
		switch {
		case err != nil:
			v.Addf("console.listen", "want host:port: %v", err)
		case !c.Console.TLS && host != "localhost" && (ip == nil || !ip.IsLoopback()):
			v.Addf("console.listen", "%q is not a loopback address (serve the console with console.tls)", host)
		}
	}
	if c.Console.TLS && c.TLS == nil {
		v.Addf("console.tls", "needs the broker's tls.cert and tls.key")
	}
	if u := c.Console.PublicURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		v.Addf("console.public_url", "must start with http:// or https://")
	}
	if c.MCP != nil {
		host, _, err := net.SplitHostPort(c.MCP.Listen)
		ip := net.ParseIP(host)
		switch {
		case err != nil:
			v.Addf("mcp.listen", "want host:port: %v", err)
		case c.TLS == nil && host != "localhost" && (ip == nil || !ip.IsLoopback()):
			v.Addf("mcp.listen", "%q is not a loopback address: plain HTTP only on loopback (configure tls)", host)
		}
		if c.MCP.TLS && c.TLS == nil {
			v.Addf("mcp.tls", "needs the broker's tls.cert and tls.key")
		}
		if c.MCP.ObserveMS < 0 || c.MCP.ObserveMS > 5000 {
			v.Addf("mcp.observe_ms", "must be 0..5000, got %d", c.MCP.ObserveMS)
		}
		if c.MCP.Model != "" {
			var w, h int
			if n, err := fmt.Sscanf(c.MCP.Model, "%dx%d", &w, &h); n != 2 || err != nil || w < 16 || h < 16 || w > 16384 || h > 16384 {
				v.Addf("mcp.model", "want WxH, 16..16384 each (1280x800), got %q", c.MCP.Model)
			}
		}
	}
	c.validatePrincipals(&v)
	for i, b := range c.Policy.ConfirmButtons {
		if !confirmableButtons[b] {
			v.Addf(fmt.Sprintf("policy.confirm_buttons[%d]", i), "unknown button %q", b)
		}
	}
	for i, sc := range c.Policy.NavigationSchemes {
		if sc != "http" && sc != "https" && sc != "about" {
			v.Addf(fmt.Sprintf("policy.navigation_schemes[%d]", i), "%q: must be http, https or about", sc)
		}
	}
	for i, o := range c.Policy.NavigationOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			v.Addf(fmt.Sprintf("policy.navigation_origins[%d]", i), "%q: want an origin, http(s)://host[:port]", o)
		}
	}
	names := map[string]bool{}
	for i, g := range c.Guests {
		f := fmt.Sprintf("guests[%d]", i)
		CheckGuest(&v, f, g)
		if names[g.Name] {
			v.Addf(f+".name", "duplicate guest %q", g.Name)
		}
		names[g.Name] = true
	}
	if t := time.Duration(c.GuestCallTimeout); t < 100*time.Millisecond || t > 10*time.Minute {
		v.Addf("guest_call_timeout", "must be 100ms..10m, got %s", t)
	}
	idle, ttl := time.Duration(c.Sessions.IdleTimeout), time.Duration(c.Sessions.TTL)
	if idle < MinSessionSeconds*time.Second || idle > MaxIdleTimeoutSeconds*time.Second {
		v.Addf("sessions.idle_timeout", "must be 10s..24h, got %s", idle)
	}
	if ttl < idle || ttl > MaxTTLSeconds*time.Second {
		v.Addf("sessions.ttl", "must be idle_timeout..168h, got %s", ttl)
	}
	return v.Err()
}

func (c *Config) validatePrincipals(v *errdefs.Violations) {
	if len(c.Principals) == 0 {
		v.Addf("principals", "at least one principal is required (nothing starts open)")
	}
	names, uids, certs := map[string]bool{}, map[uint32]string{}, map[string]string{}
	for i, p := range c.Principals {
		f := fmt.Sprintf("principals[%d]", i)
		switch {
		case p.Name == "":
			v.Addf(f+".name", "required")
		case names[p.Name]:
			v.Addf(f+".name", "duplicate principal %q", p.Name)
		}
		names[p.Name] = true
		if len(p.UIDs) == 0 && len(p.CertNames) == 0 {
			v.Addf(f, "needs uids or cert_names to authenticate")
		}
		for j, u := range p.UIDs {
			if other, ok := uids[u]; ok {
				v.Addf(fmt.Sprintf("%s.uids[%d]", f, j), "uid %d already belongs to %q", u, other)
			}
			uids[u] = p.Name
		}
		for j, n := range p.CertNames {
			if other, ok := certs[n]; ok || n == "" {
				v.Addf(fmt.Sprintf("%s.cert_names[%d]", f, j), "%q is empty or already belongs to %q", n, other)
			}
			certs[n] = p.Name
		}
		for j, g := range p.Guests {
			if _, err := path.Match(g, ""); err != nil || g == "" {
				v.Addf(fmt.Sprintf("%s.guests[%d]", f, j), "bad name or glob %q", g)
			}
		}
		if p.Burst < 0 {
			v.Addf(f+".burst", "must not be negative, got %d", p.Burst)
		}
		if fp := p.Files; fp != nil {
			for _, c := range []struct {
				name   string
				n, max int64
			}{{"max_file_bytes", fp.MaxFileBytes, validate.MaxFileBytes}, {"max_drop_bytes", fp.MaxDropBytes, validate.MaxDropBytes},
				{"max_read_bytes", fp.MaxReadBytes, validate.MaxFileBytes}} {
				if c.n < 0 || c.n > c.max {
					v.Addf(f+".files."+c.name, "must be 0..%d, got %d", c.max, c.n)
				}
			}
		}
	}
}

// CheckGuest checks a guest's name ([a-z0-9-]{1,64}), endpoint URI and labels, recording violations under
// field (".name", ".endpoint", ".labels[key]").
func CheckGuest(v *errdefs.Violations, field string, g Guest) {
	if !ValidName(g.Name, MaxGuestNameBytes, "-") {
		v.Addf(field+".name", "must be 1..%d bytes of [a-z0-9-], got %q", MaxGuestNameBytes, truncate(g.Name))
	}
	if g.Endpoint == "" {
		v.Addf(field+".endpoint", "required")
	} else if _, err := endpoint.Parse(g.Endpoint); err != nil {
		v.Addf(field+".endpoint", "%v", err)
	}
	if len(g.Labels) > MaxLabels {
		v.Addf(field+".labels", "at most %d labels, got %d", MaxLabels, len(g.Labels))
	}
	for k, val := range g.Labels {
		if !ValidName(k, MaxLabelKeyBytes, "_.-") {
			v.Addf(field+".labels", "key %q: must be 1..%d bytes of [a-z0-9_.-]", truncate(k), MaxLabelKeyBytes)
		}
		if len(val) > MaxLabelValueBytes {
			v.Addf(fmt.Sprintf("%s.labels[%s]", field, truncate(k)), "at most %d bytes, got %d", MaxLabelValueBytes, len(val))
		}
	}
}

// ValidName says whether s is 1..max bytes of [a-z0-9] and the extra characters.
func ValidName(s string, max int, extra string) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

// truncate shortens a caller's string quoted in an error message.
func truncate(s string) string {
	if len(s) > 70 {
		return s[:64] + "..."
	}
	return s
}

// MayUse says whether the principal may use the guest (exact name or glob).
func (p *Principal) MayUse(guest string) bool {
	for _, g := range p.Guests {
		if ok, _ := path.Match(g, guest); ok {
			return true
		}
	}
	return false
}
