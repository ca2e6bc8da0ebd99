import { z } from "zod";

// A process validates each schema a handful of times: compiling a fast path per schema
// (zod's JIT, through `new Function`, which no code cache keeps) costs more than it saves.
// An object schema reads this setting when it is built, so it must be set before any module
// builds one: the entry imports this module first.
z.config({ jitless: true });
