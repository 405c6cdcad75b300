#!/bin/sh
# perl and python3 one-liners with subprocess pipelines.
perl -e 'open(my $p, "-|", "ls / | sort | head -3") or die; my @l = <$p>; close $p; print scalar(@l), "\n"; system("sh", "-c", "exit 3"); print $? >> 8, "\n"; my $pid = fork; if ($pid == 0) { exec "true" } waitpid($pid, 0); print "$?\n"'
perl -e '$SIG{CHLD} = "IGNORE"; for (1..3) { my $p = fork; exit 0 if !$p } sleep 1; print "autoreaped\n"; kill 0, $$'
python3 -c 'import subprocess as s; p = s.Popen(["sort"], stdin=s.PIPE, stdout=s.PIPE); q = s.Popen(["head", "-1"], stdin=p.stdout, stdout=s.PIPE); p.stdin.write(b"b\na\n"); p.stdin.close(); print(q.communicate()[0]); p.wait(); print(s.run("exit 5", shell=True).returncode)'
python3 -c 'import os, signal, time; pid = os.fork()
if pid == 0:
    time.sleep(5); os._exit(0)
os.kill(pid, signal.SIGSTOP); print(os.waitpid(pid, os.WUNTRACED)); os.kill(pid, signal.SIGCONT); print(os.waitpid(pid, os.WCONTINUED)); os.kill(pid, signal.SIGKILL); print(os.waitpid(pid, 0))'
python3 -c 'import subprocess; print(subprocess.run(["sleep", "3"], timeout=0.2))' 2>/dev/null || echo timeout-expired
exit 0
