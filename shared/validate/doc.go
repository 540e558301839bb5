// Package validate is the pure, complete validation of every request, shared by agent and broker. Each
// function checks every field and returns a *errdefs.BadRequest listing every bad field (or nil); nothing is
// done on a bad request. Bounds that depend on the live desktop (a point inside the screen, a region inside
// a display) are left to the agent.
package validate
