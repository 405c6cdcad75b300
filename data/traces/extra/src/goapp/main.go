// Command spawner starts goroutines that run child processes: exits with
// codes, a killed child, a child in its own process group, a pipeline.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGCHLD)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command("sh", "-c", fmt.Sprintf("exit %d", i))
			err := cmd.Run()
			fmt.Println("child", i, err)
		}(i)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		cmd := exec.Command("sleep", "5")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			return
		}
		time.Sleep(20 * time.Millisecond)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGSTOP)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT)
		cmd.Process.Kill()
		fmt.Println("killed:", cmd.Wait())
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		out, err := exec.Command("sh", "-c", "echo a b c | tr ' ' '\\n' | sort -r | head -2").Output()
		fmt.Printf("pipeline %q %v\n", out, err)
		_, err = exec.Command("/nonexistent/binary").Output()
		fmt.Println("missing:", err)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		cmd := exec.Command("sh", "-c", "kill -TERM $$")
		fmt.Println("self-term:", cmd.Run())
		cmd = exec.Command("sh", "-c", "sleep 1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Start()
		time.Sleep(10 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		fmt.Println("setsid child:", cmd.Wait())
	}()
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	<-sigs
	wg.Wait()
	// exec ourselves away at the end: a Go program replacing its image
	// while other threads exist (the runtime's threads are torn down).
	syscall.Exec("/bin/true", []string{"true"}, os.Environ())
}
