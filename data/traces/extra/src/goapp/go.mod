module example.com/spawner

go 1.21
