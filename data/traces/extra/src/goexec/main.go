// Go's os/exec: a command run to completion, and one killed (Go uses
// clone3 with CLONE_PIDFD, pidfd_send_signal and waitid(P_PIDFD) on
// Linux); recorded by ../../record.sh.
package main

import (
	"os/exec"
)

func main() {
	if err := exec.Command("/bin/true").Run(); err != nil {
		panic(err)
	}
	cmd := exec.Command("/bin/sleep", "10")
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	if err := cmd.Process.Kill(); err != nil {
		panic(err)
	}
	_ = cmd.Wait()
}
