module goexec

go 1.22
