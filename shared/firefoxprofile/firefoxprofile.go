// Package firefoxprofile says how Glovebox runs Firefox ESR: the command line of a browser whose WebDriver BiDi
// remote agent listens on a loopback port, and the preferences written to its profile's user.js so it shows no
// first-run pages and makes no background network traffic. The agent, the test helpers and the images use it, so
// the flags and preferences have one home.
package firefoxprofile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PortFlag is how a Firefox command line names its remote agent port (the same flag as Chromium's DevTools port).
const PortFlag = "--remote-debugging-port="

// Prefs are the preferences of every profile Glovebox runs Firefox with, as user.js values (JavaScript literals).
var Prefs = [][2]string{
	// WebDriver BiDi only: no CDP endpoint (remote.active-protocols 1 = BiDi).
	{"remote.active-protocols", "1"},
	// No first-run, welcome, what's-new or default-browser pages and dialogs.
	{"browser.shell.checkDefaultBrowser", "false"},
	{"browser.startup.homepage_override.mstone", `"ignore"`},
	{"browser.startup.page", "0"},
	{"browser.startup.homepage", `"about:blank"`},
	{"startup.homepage_welcome_url", `""`},
	{"startup.homepage_welcome_url.additional", `""`},
	{"browser.aboutwelcome.enabled", "false"},
	{"browser.newtabpage.enabled", "false"},
	{"browser.tabs.warnOnClose", "false"},
	{"browser.warnOnQuit", "false"},
	{"browser.sessionstore.resume_from_crash", "false"},
	{"toolkit.startup.max_resumed_crashes", "-1"},
	{"datareporting.policy.firstRunURL", `""`},
	{"browser.uitour.enabled", "false"},
	{"browser.translations.automaticallyPopup", "false"},
	// No background network: updates, telemetry, health report, safe browsing, captive portal and connectivity
	// probes, remote settings, add-on metadata, search suggestions, prefetching.
	{"app.update.auto", "false"},
	{"app.update.enabled", "false"},
	{"app.update.disabledForTesting", "true"},
	{"app.update.checkInstallTime", "false"},
	{"datareporting.policy.dataSubmissionEnabled", "false"},
	{"datareporting.healthreport.uploadEnabled", "false"},
	{"toolkit.telemetry.enabled", "false"},
	{"toolkit.telemetry.unified", "false"},
	{"toolkit.telemetry.server", `""`},
	{"toolkit.telemetry.reportingpolicy.firstRun", "false"},
	{"browser.safebrowsing.malware.enabled", "false"},
	{"browser.safebrowsing.phishing.enabled", "false"},
	{"browser.safebrowsing.downloads.enabled", "false"},
	{"browser.safebrowsing.downloads.remote.enabled", "false"},
	{"browser.safebrowsing.blockedURIs.enabled", "false"},
	{"network.captive-portal-service.enabled", "false"},
	{"network.connectivity-service.enabled", "false"},
	{"network.prefetch-next", "false"},
	{"network.dns.disablePrefetch", "true"},
	{"network.http.speculative-parallel-limit", "0"},
	{"services.settings.server", `"data:,#remote-settings-disabled"`},
	{"extensions.update.enabled", "false"},
	{"extensions.getAddons.cache.enabled", "false"},
	{"extensions.systemAddon.update.enabled", "false"},
	{"browser.search.suggest.enabled", "false"},
	{"browser.search.update", "false"},
	{"browser.topsites.contile.enabled", "false"},
	{"browser.newtabpage.activity-stream.feeds.telemetry", "false"},
	{"browser.ping-centre.telemetry", "false"},
	{"media.gmp-manager.url", `"data:,"`},
	{"browser.region.network.url", `""`},
	{"browser.contentblocking.report.lockwise.enabled", "false"},
	{"signon.rememberSignons", "false"},
	// No background features started at startup: the preloaded new-tab page (a browser in its own process, made in
	// the first window's idle tasks, which session.new waits for), studies and experiments (Normandy, Nimbus),
	// add-on discovery, Pocket, profile backups.
	{"browser.newtab.preload", "false"},
	{"app.normandy.enabled", "false"},
	{"app.shield.optoutstudies.enabled", "false"},
	{"messaging-system.rsexperimentloader.enabled", "false"},
	{"browser.discovery.enabled", "false"},
	{"extensions.pocket.enabled", "false"},
	{"browser.backup.enabled", "false"},
	{"browser.newtabpage.activity-stream.feeds.system.topstories", "false"},
	{"browser.newtabpage.activity-stream.feeds.section.topstories", "false"},
}

// UserJS is the text of a profile's user.js holding Prefs.
func UserJS() string {
	var b strings.Builder
	b.WriteString("// Written by Glovebox: no first-run pages, no background network, WebDriver BiDi only.\n")
	for _, p := range Prefs {
		fmt.Fprintf(&b, "user_pref(%q, %s);\n", p[0], p[1])
	}
	return b.String()
}

// WriteProfile creates dir (0700) when missing and writes its user.js.
func WriteProfile(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "user.js"), []byte(UserJS()), 0o600)
}

// Args is the command line (after the program) of a Firefox with its remote agent on port and its profile in
// dir, opening about:blank on the display (never headless: it is the desktop's browser). The remote agent
// listens on loopback only and accepts no other host or origin by default.
func Args(port int, dir string) []string {
	return []string{"-profile", dir, "-no-remote", "-new-instance", PortFlag + strconv.Itoa(port), "about:blank"}
}
