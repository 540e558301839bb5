//go:build !linux

package endpoint

import (
	"fmt"

	"glovebox.dev/shared/errdefs"
)

func openPort(p string) (serialPort, error) {
	return nil, fmt.Errorf("virtio-serial ports: %w (linux guests only)", errdefs.ErrUnsupportedAction)
}
