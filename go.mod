module github.com/npyflow/npyflow

go 1.26.8

require github.com/klauspost/compress v1.20.3

require github.com/x448/float16 v0.8.4 // indirect
