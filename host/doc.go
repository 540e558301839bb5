// Package host is the home of glovebox-broker and the glovebox CLI (see the broker issue); until they land
// the module holds only this placeholder so the workspace builds.
package host
