// Package tests holds Glovebox's end-to-end tests: the real agent binary on a real Xvfb desktop, checked
// through the programs it drives.
package tests
