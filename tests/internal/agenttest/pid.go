package agenttest

// Pid is the agent process's id (for reading its memory use from /proc).
func (a *Agent) Pid() int { return a.cmd.Process.Pid }
