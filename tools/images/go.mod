module garhwal.invalid/tools/images

go 1.26.0
