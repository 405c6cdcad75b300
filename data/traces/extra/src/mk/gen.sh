#!/bin/sh
# gen.sh N: emit a C unit defining int uN(int)
echo "int u$1(int x) { return x + $1; }"
