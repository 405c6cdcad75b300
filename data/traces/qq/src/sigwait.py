import os, signal, time, threading, subprocess
signal.signal(signal.SIGUSR2, lambda *a: None)
pids=[]
for i in range(5):
    p=os.fork()
    if p==0:
        signal.pthread_sigmask(signal.SIG_BLOCK,[signal.SIGUSR1])
        os.kill(os.getppid(), signal.SIGUSR2)
        s=signal.sigwait([signal.SIGUSR1]); os._exit(s)
    pids.append(p)
time.sleep(0.2)
for p in pids: os.kill(p, signal.SIGUSR1)
for p in pids: print(os.waitid(os.P_PID,p,os.WEXITED).si_status)
t=threading.Thread(target=lambda: subprocess.run(["true"])); t.start(); t.join()
r,w=os.pipe()
p=os.fork()
if p==0:
    os.setsid(); os.close(w); os.read(r,1); os._exit(3)
os.close(r); print(os.getsid(p)==p); os.kill(p, signal.SIGKILL); print(os.waitpid(p,0)[1])
