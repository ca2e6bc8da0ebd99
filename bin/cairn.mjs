#!/usr/bin/env node
import "../dist/cairn.mjs";
