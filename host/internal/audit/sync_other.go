//go:build !linux

package audit

import "os"

func datasync(f *os.File) error { return f.Sync() }
