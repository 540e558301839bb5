package firefoxprofile

import (
	"os"
	"strings"
	"testing"
)

// TestDesktopImageFiles: the desktop image's user.js is UserJS, and its unit runs Firefox with Args, so the
// image and the agent start Firefox alike (regenerate the file with UserJS when the preferences change).
func TestDesktopImageFiles(t *testing.T) {
	got, err := os.ReadFile("../../images/desktop/rootfs/etc/glovebox/firefox-user.js")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != UserJS() {
		t.Errorf("images/desktop/rootfs/etc/glovebox/firefox-user.js differs from UserJS():\n%s", UserJS())
	}
	unit, err := os.ReadFile("../../images/desktop/rootfs/etc/systemd/system/glovebox-firefox.service")
	if err != nil {
		t.Fatal(err)
	}
	cmd := strings.ReplaceAll(string(unit), "\\\n\t", "")
	want := "/usr/bin/firefox-esr " + strings.Join(Args(9223, "/home/desktop/.config/glovebox-firefox"), " ")
	if !strings.Contains(cmd, want) {
		t.Errorf("glovebox-firefox.service does not run %q", want)
	}
}

// TestUserJS: every preference is one user_pref line, BiDi only among them.
func TestUserJS(t *testing.T) {
	js := UserJS()
	if n := strings.Count(js, "user_pref("); n != len(Prefs) {
		t.Errorf("%d user_pref lines, want %d", n, len(Prefs))
	}
	for _, want := range []string{`user_pref("remote.active-protocols", 1);`, `user_pref("browser.shell.checkDefaultBrowser", false);`, `user_pref("app.update.auto", false);`} {
		if !strings.Contains(js, want) {
			t.Errorf("user.js lacks %s", want)
		}
	}
}
