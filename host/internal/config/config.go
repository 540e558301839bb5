// Package config is glovebox-broker's configuration file: a strict JSON document (unknown fields are
// rejected) decoded into Config, with every default a named constant and every error naming its field.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"
)

// Defaults. Each says why it has the value it has.
const (
	// DefaultListen is the unix socket the broker serves on when the file names no listener: local callers
	// only, authenticated by their uid.
	DefaultListen = "unix:///run/glovebox/broker.sock"
	// DefaultGuestCallTimeout bounds every guest call (plus the action's own duration for wait and hold_key):
	// long enough for a full-screen PNG on a loaded guest, short enough that a hung guest is noticed quickly.
	DefaultGuestCallTimeout = 10 * time.Second
	// DefaultIdleTimeout closes sessions nobody used for 15 minutes (the SessionService contract).
	DefaultIdleTimeout = 15 * time.Minute
	// DefaultTTL is a session's hard lifetime, 8 hours (the SessionService contract).
	DefaultTTL = 8 * time.Hour
	// DefaultRatePerSecond and DefaultBurst bound one session's mutations: a person clicks a few times a
	// second, an agent loop a few dozen; 50/s with bursts of 100 stops runaway loops and nothing else.
	DefaultRatePerSecond = 50
	DefaultBurst         = 100
	// DefaultRotateBytes rotates audit files at 64 MiB so one file stays quick to verify and copy.
	DefaultRotateBytes = 64 << 20
	// DefaultAuditKeyFile is the audit HMAC key's name inside the audit directory.
	DefaultAuditKeyFile = "audit.key"
	// DefaultControlIdleTimeout ends a control lease after 30 minutes without input from its holder: a person
	// who walked away must not lock the agents out for good (the ControlService contract).
	DefaultControlIdleTimeout = 30 * time.Minute
)

// Bounds of session timeouts in seconds (the SessionService contract).
const (
	MinSessionSeconds     = 10
	MaxIdleTimeoutSeconds = 86400
	MaxTTLSeconds         = 604800
)

// Config is the broker's configuration file.
type Config struct {
	// Listen lists the endpoints the broker serves on: unix:///path (peer uid checked) and tcp://host:port
	// (mutual TLS, needs TLS). Empty: DefaultListen.
	Listen []string `json:"listen"`
	// TLS is required as soon as one tcp:// listener is configured: nothing starts open.
	TLS *TLS `json:"tls"`
	// Audit says where the audit log lives.
	Audit Audit `json:"audit"`
	// MetricsListen is an optional host:port for Prometheus metrics over plain HTTP (/metrics). It must be a
	// loopback address unless MetricsAllowNonLoopback is set.
	MetricsListen           string `json:"metrics_listen"`
	MetricsAllowNonLoopback bool   `json:"metrics_allow_non_loopback"`
	// Principals are the callers the broker knows; anyone else is refused.
	Principals []Principal `json:"principals"`
	// Policy holds the confirmation gates.
	Policy Policy `json:"policy"`
	// Guests are registered at start.
	Guests []Guest `json:"guests"`
	// GuestCallTimeout bounds each guest call (Go duration, "10s"); empty: DefaultGuestCallTimeout.
	GuestCallTimeout Duration `json:"guest_call_timeout"`
	// Sessions holds the defaults of new sessions.
	Sessions Sessions `json:"sessions"`
	// Control holds the control lease rules.
	Control Control `json:"control"`
	// Console is the web console (live view, takeover, help requests); off unless Listen is set.
	Console Console `json:"console"`
	// MCP turns on the Model Context Protocol endpoint (streamable HTTP); nil: off.
	MCP *MCP `json:"mcp"`
	// Recording says which sessions and control leases are recorded.
	Recording Recording `json:"recording"`
}

// Control holds the control lease rules.
type Control struct {
	// IdleTimeout ends a lease after this long without its holder's input (1m..24h); empty:
	// DefaultControlIdleTimeout.
	IdleTimeout Duration `json:"idle_timeout"`
}

// Console configures the web console.
type Console struct {
	// Listen is host:port for the console's HTTP server. It must be a loopback address unless TLS is set.
	Listen string `json:"listen"`
	// TLS serves the console over HTTPS with the broker's tls.cert and tls.key (no client certificates: the
	// console authenticates with its links' cookies), which allows a non-loopback Listen.
	TLS bool `json:"tls"`
	// PublicURL is the console's address as browsers reach it ("https://broker.example:7443"), used in links;
	// empty: http(s)://Listen.
	PublicURL string `json:"public_url"`
}

// MCP configures the broker's MCP endpoint: streamable HTTP at /mcp on its own listener, authenticated by
// bearer tokens minted over gRPC (McpService). Plain HTTP only on a loopback address; any other address
// needs TLS (the broker's tls.cert and tls.key serve it; MCP clients present no client certificate).
type MCP struct {
	// Listen is host:port.
	Listen string `json:"listen"`
	// TLS serves HTTPS with the broker's tls.cert and tls.key on any address, loopback included (a non-loopback
	// address is served with TLS whenever the broker has tls).
	TLS bool `json:"tls"`
	// Model is the display size models are shown, "WxH" (default 1280x800).
	Model string `json:"model"`
	// ObserveMS, when > 0, makes desktop actions answer with a screenshot after this long of quiet (0..5000).
	ObserveMS int32 `json:"observe_ms"`
}

// TLS is the TCP listener's certificate and the CA its clients' certificates must chain to.
type TLS struct {
	Cert     string `json:"cert"`
	Key      string `json:"key"`
	ClientCA string `json:"client_ca"`
}

// Audit configures the audit log.
type Audit struct {
	// Dir holds the per-guest log files. Required.
	Dir string `json:"dir"`
	// KeyFile is the HMAC key (created 0600 when absent); empty: Dir/DefaultAuditKeyFile.
	KeyFile string `json:"key_file"`
	// RotateBytes is the size at which a log file is rotated; 0: DefaultRotateBytes.
	RotateBytes int64 `json:"rotate_bytes"`
}

// Principal is a known caller and what it may do.
type Principal struct {
	// Name identifies the principal in sessions, leases and the audit log. Required, unique.
	Name string `json:"name"`
	// UIDs are the unix uids that authenticate as this principal on unix listeners.
	UIDs []uint32 `json:"uids"`
	// CertNames are the client certificate CommonNames or DNS SANs that authenticate as this principal on
	// TCP listeners.
	CertNames []string `json:"cert_names"`
	// Guests are guest names or path.Match globs ("ci-*", "*") the principal may use.
	Guests []string `json:"guests"`
	// ObserveOnly principals get observe-only sessions.
	ObserveOnly bool `json:"observe_only"`
	// Control lets the principal take control of a guest (AcquireControl).
	Control bool `json:"control"`
	// Admin sees and may close every session, release anyone's control and read every audit log.
	Admin bool `json:"admin"`
	// Audit lets the principal read the audit log of the guests it may use.
	Audit bool `json:"audit"`
	// RatePerSecond and Burst bound each of the principal's sessions' mutations (token bucket);
	// 0: DefaultRatePerSecond / DefaultBurst; negative: unlimited.
	RatePerSecond float64 `json:"rate_per_second"`
	Burst         int     `json:"burst"`
	// Files is the principal's file-transfer policy (drops and reads); nil: allowed within the agent's caps.
	Files *FilesPolicy `json:"files"`
}

// FilesPolicy bounds a principal's file transfers. Caps are 0 (the agent's own: 256 MiB a file, 512 MiB a
// drop) or lower; a drop or read over a cap is refused before any byte moves.
type FilesPolicy struct {
	// Deny forbids drops and reads (POLICY_DENIED, audited).
	Deny bool `json:"deny"`
	// MaxFileBytes caps each dropped file; MaxDropBytes a drop's sum; MaxReadBytes a file read out.
	MaxFileBytes int64 `json:"max_file_bytes"`
	MaxDropBytes int64 `json:"max_drop_bytes"`
	MaxReadBytes int64 `json:"max_read_bytes"`
}

// Policy holds the confirmation gates, fixed at start.
type Policy struct {
	// ConfirmButtons lists mouse buttons whose clicks need confirm ("right", "middle"). nil: both; [] none.
	ConfirmButtons []string `json:"confirm_buttons"`
	// ConfirmSecrets makes typed and clipboard text that looks like a secret need confirm. nil: true.
	ConfirmSecrets *bool `json:"confirm_secrets"`
	// NavigationSchemes are the URL schemes navigate and new_tab may use, among http, https and about.
	// nil: all three.
	NavigationSchemes []string `json:"navigation_schemes"`
	// NavigationOrigins, when not empty, are the only origins ("https://example.com", "http://127.0.0.1:8080")
	// pages may be sent to; about: URLs need only their scheme. Denials are POLICY_DENIED, audited.
	NavigationOrigins []string `json:"navigation_origins"`
}

// Guest is a guest registered at start.
type Guest struct {
	Name     string            `json:"name"`
	Endpoint string            `json:"endpoint"`
	Labels   map[string]string `json:"labels"`
	// HideScreenWhileHeld refuses sessions' observations with CONTROL_HELD while a human holds the guest
	// (credentials may be on the screen); the console still sees it.
	HideScreenWhileHeld bool `json:"hide_screen_while_held"`
}

// Sessions are the defaults of new sessions.
type Sessions struct {
	// IdleTimeout and TTL apply when CreateSession names none; empty: DefaultIdleTimeout, DefaultTTL.
	IdleTimeout Duration `json:"idle_timeout"`
	TTL         Duration `json:"ttl"`
}

// Duration is a time.Duration written as a Go duration string ("10s", "15m").
type Duration time.Duration

// UnmarshalJSON parses a Go duration string. Its errors are *json.UnmarshalTypeError, the one kind the
// decoder adds the field's path to (decodeError then names the field).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return &json.UnmarshalTypeError{Value: truncate(string(b)), Type: durationType}
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return &json.UnmarshalTypeError{Value: fmt.Sprintf("%q (%v)", truncate(s), err), Type: durationType}
	}
	*d = Duration(v)
	return nil
}

var durationType = reflect.TypeFor[Duration]()

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Load reads, decodes and validates the file at path.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a config document strictly, applies defaults and validates it.
func Parse(b []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trailing data after the config object")
	}
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// decodeError names the field of a JSON decoding error.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type == durationType {
		return fmt.Errorf("%s: want a duration string like \"10s\", got %s", te.Field, te.Value)
	}
	if errors.As(err, &te) {
		return fmt.Errorf("%s: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	if s := err.Error(); strings.HasPrefix(s, "json: unknown field ") {
		return fmt.Errorf("unknown field %s", strings.TrimPrefix(s, "json: unknown field "))
	}
	return err
}

// ApplyDefaults fills every unset field that has a default.
func (c *Config) ApplyDefaults() {
	if len(c.Listen) == 0 {
		c.Listen = []string{DefaultListen}
	}
	if c.GuestCallTimeout == 0 {
		c.GuestCallTimeout = Duration(DefaultGuestCallTimeout)
	}
	if c.Sessions.IdleTimeout == 0 {
		c.Sessions.IdleTimeout = Duration(DefaultIdleTimeout)
	}
	if c.Sessions.TTL == 0 {
		c.Sessions.TTL = Duration(DefaultTTL)
	}
	if c.Control.IdleTimeout == 0 {
		c.Control.IdleTimeout = Duration(DefaultControlIdleTimeout)
	}
	if c.Audit.RotateBytes == 0 {
		c.Audit.RotateBytes = DefaultRotateBytes
	}
	if c.Policy.ConfirmButtons == nil {
		c.Policy.ConfirmButtons = []string{"right", "middle"}
	}
	if c.Policy.ConfirmSecrets == nil {
		t := true
		c.Policy.ConfirmSecrets = &t
	}
	for i := range c.Principals {
		p := &c.Principals[i]
		if p.RatePerSecond == 0 {
			p.RatePerSecond = DefaultRatePerSecond
		}
		if p.Burst == 0 {
			p.Burst = DefaultBurst
		}
	}
}
