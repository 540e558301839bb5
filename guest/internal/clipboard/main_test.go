package clipboard

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that Close stops every goroutine of a Clipboard (event pump, event loop, xgb's own).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
