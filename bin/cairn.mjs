#!/usr/bin/env node
// Kept for callers that name this path: the launcher is bin/cairn.cjs (the package's `cairn`).
import "./cairn.cjs";
