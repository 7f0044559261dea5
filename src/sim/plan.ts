/**
 * What the simulated agent (agent.ts) does in one task, drawn up front from its seeded
 * {@link Rng}: the spinner's verb and tip, a read-only call, the shell command it wants to run
 * and whether it asks first, the silent times, and the question its reply may end with. The
 * wording is Claude Code 2.1.332's (fixtures/claude-code/README.md).
 */
import type { Rng } from './rng.ts';

/** Probability that a task's command needs a permission prompt (25 of 30 in the seed's run). */
export const PROMPT_PROBABILITY = 0.83;
/** Probability that a reply ends with the agent's own question ("Would you like me to ...?"). */
export const QUESTION_PROBABILITY = 0.35;
/** Silent tool calls last this long, ms (DESIGN.md section 1). */
export const SILENT_TOOL_MS: readonly [number, number] = [500, 6000];
/** The working directory the prompt names. */
export const PROJECT_DIR = '/home/dev/proj';

const VERBS = ['Churning', 'Doing', 'Calculating', 'Frosting', 'Brewing', 'Cogitating', 'Baking'];
export const PAST: Record<string, string> = {
  Churning: 'Churned',
  Doing: 'Did',
  Calculating: 'Calculated',
  Frosting: 'Frosted',
  Brewing: 'Brewed',
  Cogitating: 'Cogitated',
  Baking: 'Baked',
};
const TIPS = [
  'Tip: Use Plan Mode to prepare for a complex request before making changes.',
  'Tip: Press shift+tab to cycle permission modes.',
  'Tip: Run /init to create a CLAUDE.md file with instructions for Claude.',
];

/** A shell command the agent wants to run, and what it says around it. */
export interface Tool {
  cmd: string;
  /** The grey line under the command in the prompt. */
  description: string;
  intro: string;
  result: string;
  done: string;
}

const TOOLS: readonly Tool[] = [
  {
    cmd: 'touch hello.txt',
    description: 'Create empty hello.txt file',
    intro: "I'll create the file.",
    result: '(No content)',
    done: 'Created hello.txt in the project directory.',
  },
  {
    cmd: 'mkdir -p build/out',
    description: 'Create the build output directory',
    intro: "I'll set up the build directory first.",
    result: '(No content)',
    done: 'The build directory is ready at build/out.',
  },
  {
    cmd: 'rm -f build.log',
    description: 'Remove the stale build log',
    intro: 'The old build log is stale; I will remove it.',
    result: '(No content)',
    done: 'Removed build.log.',
  },
  {
    cmd: 'npm test',
    description: 'Run the test suite',
    intro: 'Let me run the tests.',
    result: '12 passing (340ms)',
    done: 'All 12 tests pass.',
  },
  {
    cmd: 'git add greet.py',
    description: 'Stage the change to greet.py',
    intro: "I'll stage the change.",
    result: '(No content)',
    done: 'Staged greet.py.',
  },
  {
    cmd: 'sed -i s/hello/hi/ greet.py',
    description: 'Update the greeting in greet.py',
    intro: "I'll update the greeting.",
    result: '(No content)',
    done: 'I fixed the off-by-one error in the loop bounds, so the last element is now processed.',
  },
];

/** Read-only calls run unasked (as `ls`/`cat` do in manual mode): silent, then a summary. */
const READS = [
  { label: 'Read(greet.py)', result: 'Read 24 lines' },
  { label: 'Bash(ls src)', result: 'greet.py  util.py' },
  { label: 'Search(pattern: "TODO")', result: 'Found 2 files' },
];

const QUESTIONS = [
  'Would you like me to add a regression test?',
  'Would you like me to run the full test suite as well?',
  'Would you like me to update the README too?',
];

/** Everything random about one task, drawn up front (so a seed's runs can be inspected). */
export interface TaskPlan {
  verb: string;
  tip: string;
  /** Spinner time before the first words, ms. */
  thinkMs: number;
  tool: Tool;
  /** A read-only call first (runs unasked): silent for `silentMs`, then `thinkMs` spinner. */
  read: { label: string; result: string; silentMs: number; thinkMs: number } | null;
  /** The command needs a permission prompt. */
  asks: boolean;
  /** The command's silent run, ms. */
  toolMs: number;
  /** Spinner time before the reply, ms. */
  afterMs: number;
  /** The agent's own question at the end of the reply, '' for none. */
  question: string;
}

/** Draws the next task's plan from `rng` (a fixed number of draws per task). */
export function planTask(rng: Rng): TaskPlan {
  const verb = rng.pick(VERBS);
  const tip = rng.pick(TIPS);
  const thinkMs = rng.between(800, 3000);
  const tool = rng.pick(TOOLS);
  const hasRead = rng.chance(0.5);
  const read = {
    ...rng.pick(READS),
    silentMs: rng.between(...SILENT_TOOL_MS),
    thinkMs: rng.between(300, 1500),
  };
  const asks = rng.chance(PROMPT_PROBABILITY);
  const toolMs = rng.between(...SILENT_TOOL_MS);
  const afterMs = rng.between(400, 1500);
  const hasQuestion = rng.chance(QUESTION_PROBABILITY);
  const question = rng.pick(QUESTIONS);
  return {
    verb,
    tip,
    thinkMs,
    tool,
    read: hasRead ? read : null,
    asks,
    toolMs,
    afterMs,
    question: hasQuestion ? question : '',
  };
}
