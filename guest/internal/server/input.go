package server

// Input is the input backend (XTEST). (skeleton: its methods are defined by the input backend work)
type Input interface {
	capable
}
