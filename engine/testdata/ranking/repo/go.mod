module example.com/shipyard

go 1.22
