#!/bin/sh
# Stand-in for the Prisma schema engine, which cannot be downloaded here; `prisma generate` needs only a path.
exit 0
