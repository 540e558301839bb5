package policy

import (
	"fmt"
	"net/url"
	"strings"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// DefaultNavigationSchemes are the URL schemes a page may be sent to when the config names none. The agent
// refuses every other scheme (file:, javascript:, data: ...) on its own; the broker can only narrow this.
var DefaultNavigationSchemes = []string{"http", "https", "about"}

// Navigation is the navigation policy: which schemes, and (when Origins is not empty) which origins, navigate
// and new_tab may send a tab to. about: URLs have no origin and are allowed whenever their scheme is.
type Navigation struct {
	Schemes map[string]bool
	// Origins are "scheme://host[:port]" (lower case, default ports left out); empty: any origin.
	Origins map[string]bool
}

// NewNavigation builds the policy from config lists (nil schemes: DefaultNavigationSchemes).
func NewNavigation(schemes, origins []string) Navigation {
	if schemes == nil {
		schemes = DefaultNavigationSchemes
	}
	n := Navigation{Schemes: map[string]bool{}, Origins: map[string]bool{}}
	for _, s := range schemes {
		n.Schemes[strings.ToLower(s)] = true
	}
	for _, o := range origins {
		if c, err := CanonicalOrigin(o); err == nil {
			n.Origins[c] = true
		}
	}
	return n
}

// CanonicalOrigin is the origin of a URL ("https://example.com:8443"): scheme and host in lower case, the
// default port left out. It fails for a URL without a host.
func CanonicalOrigin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not an origin (scheme://host[:port])", raw)
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return scheme + "://" + host + ":" + port, nil
	}
	return scheme + "://" + host, nil
}

// Check returns an error wrapping errdefs.ErrPolicyDenied when raw may not be navigated to. The error names the
// field, the scheme and the origin (the URL's own text is not repeated).
func (n Navigation) Check(field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s: not a URL: %w", field, errdefs.ErrPolicyDenied)
	}
	scheme := strings.ToLower(u.Scheme)
	if !n.Schemes[scheme] {
		return fmt.Errorf("%s: scheme %q is not allowed by the navigation policy: %w", field, scheme, errdefs.ErrPolicyDenied)
	}
	if len(n.Origins) == 0 || scheme == "about" {
		return nil
	}
	o, err := CanonicalOrigin(raw)
	if err != nil || !n.Origins[o] {
		return fmt.Errorf("%s: origin %s is not allowed by the navigation policy: %w", field, o, errdefs.ErrPolicyDenied)
	}
	return nil
}

// CheckAct checks the URL of a navigate or new_tab action (confirm does not lift it).
func (n Navigation) CheckAct(r *agentv1.ActRequest) error {
	switch a := r.GetAction().(type) {
	case *agentv1.ActRequest_Navigate:
		return n.Check("request.action.navigate.url", a.Navigate.GetUrl())
	case *agentv1.ActRequest_NewTab:
		if u := a.NewTab.GetUrl(); u != "" {
			return n.Check("request.action.new_tab.url", u)
		}
	}
	return nil
}
