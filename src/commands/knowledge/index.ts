import type { CommandDomain } from "../domain.js";
import { briefRecord, contextCommand } from "./brief.js";
import { glossaryList, glossaryRemove, glossarySet } from "./glossary.js";
import {
  factShow,
  forgetCommand,
  recallCommand,
  rememberCommand,
  supersedeCommand,
  topicsCommand,
} from "./memory.js";
import { noteAdd, noteList, noteShow, noteSupersede, noteTrust } from "./notes.js";
import { riskAdd, riskClose, riskList } from "./risks.js";
import { KNOWLEDGE_TOOLS } from "./tools.js";

/** Notes, memory, risks, the glossary and the brief. */
export const knowledgeDomain: CommandDomain = {
  name: "knowledge",
  commands: [
    noteAdd,
    noteList,
    noteShow,
    noteTrust,
    noteSupersede,
    rememberCommand,
    recallCommand,
    topicsCommand,
    supersedeCommand,
    forgetCommand,
    factShow,
    riskAdd,
    riskList,
    riskClose,
    glossarySet,
    glossaryList,
    glossaryRemove,
    contextCommand,
    briefRecord,
  ],
  tools: KNOWLEDGE_TOOLS,
  groups: {
    note: "Decisions, findings, metrics and references, scoped to a task or the workspace",
    fact: "Read a remembered fact by id, superseded or not",
    risk: "Risks with impact, likelihood and indicators; rank is computed",
    glossary: "Project terms and what they mean",
    brief: "Record the briefs agents were given, so what they knew can be reviewed later",
  },
};
