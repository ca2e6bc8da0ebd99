import { describe, expect, it } from "vitest";
import { OsConfig } from "../../src/domains/os/config.js";
import { familyOf } from "../../src/domains/os/family.js";
import { decide } from "../../src/domains/os/policy.js";

const everything = OsConfig.parse({ enabled: true, allow: ["*"] });
const rule = (bin: string, args: string[], realName?: string) => {
  const verdict = decide(everything, bin, args, realName);
  return verdict.verdict === "refuse" ? verdict.rule : "allow";
};

describe("the confirm list, whatever name a program goes by", () => {
  it("strips version and variant suffixes to the program's family", () => {
    expect(familyOf("python3.11")).toBe("python");
    expect(familyOf("perl5.36-x86_64-linux-gnu")).toBe("perl");
    expect(familyOf("vim.basic")).toBe("vim");
    expect(familyOf("mkfs.ext4")).toBe("mkfs");
    expect(familyOf("ld-linux-x86-64.so.2")).toBe("ld.so");
    expect(familyOf("2to3")).toBe("2to3");
    expect(familyOf("g++")).toBe("g++");
  });

  it("needs a person for another name of a listed program, as given or as PATH resolves it", () => {
    expect(rule("python3.11", ["-c", "print(1)"])).toBe("confirm");
    expect(rule("mkfs.ext4", ["/dev/sdz"])).toBe("confirm");
    expect(rule("ld.so", ["/bin/true"])).toBe("confirm");
    expect(rule("rbash", ["-c", "id"], "bash")).toBe("confirm");
    expect(rule("editor", ["+!id"], "vim.basic")).toBe("confirm");
    expect(rule("vi", ["-S", "x.vim"], "vim.basic")).toBe("confirm");
    // A line number to start at is no command.
    expect(rule("vi", ["+12", "notes.txt"], "vim.basic")).toBe("allow");
    expect(rule("python3.11", ["--version"])).toBe("allow");
    expect(rule("ls", ["-la"], "ls")).toBe("allow");
  });

  it("needs a person for wrappers that start another program", () => {
    for (const [bin, args] of [
      ["setpriv", ["--reuid=0", "id"]],
      ["chrt", ["-o", "0", "id"]],
      ["prlimit", ["id"]],
      ["run-parts", ["/tmp/x"]],
      ["gdb", ["-batch", "-ex", "shell id"]],
      ["sqlite3", [":memory:", ".sh id"]],
      ["zip", ["z.zip", "f", "-T", "-TT", "sh -c id #"]],
      ["git", ["fetch", "--upload-pack=sh -c id", "origin"]],
      ["scp", ["-S", "./evil", "a", "b"]],
    ] as const) {
      expect(rule(bin, [...args]), bin).toBe("confirm");
    }
    expect(rule("git", ["log", "--oneline"])).toBe("allow");
    expect(rule("zip", ["-r", "z.zip", "dir"])).toBe("allow");
  });

  it("needs a person for programs that run a shell command given as an argument", () => {
    // ed reads a file named `!command` from the command's output, run by a shell.
    expect(rule("ed", ["-s", "!id >&2"])).toBe("confirm");
    // psql's meta-commands run shells: `\!`, `\g |cmd`, `\o |cmd`, `\copy … program`.
    expect(rule("psql", ["-h", "db", "-c", "\\! id"])).toBe("confirm");
    expect(rule("psql", ["--command=select 1 \\g |id"])).toBe("confirm");
    expect(rule("psql", ["-Xc\\! id"])).toBe("confirm");
    // wget runs the program its askpass names, also set through a wgetrc command.
    expect(rule("wget", ["--use-askpass=./x", "https://example.org"])).toBe("confirm");
    expect(rule("wget", ["-qe", "use_askpass=./x", "https://example.org"])).toBe("confirm");
    expect(rule("ed", ["-s", "notes.txt"])).toBe("allow");
    expect(rule("psql", ["-h", "db", "-c", "select 1"])).toBe("allow");
    expect(rule("wget", ["-q", "https://example.org"])).toBe("allow");
  });
});

describe("code flags given their value attached, and more programs that run a command", () => {
  it("needs a person for a code flag whose value is attached to it", () => {
    for (const [bin, args] of [
      ["python3", ["-cimport os; os.system('id')"]],
      ["python3", ["-Bcimport os"]],
      ["perl", ["-esystem('id')"]],
      ["perl", ["-wlesystem('id')"]],
      ["node", ["-eprocess.exit()"]],
      ["tar", ["-Ish -c id", "-xf", "a.tar"]],
      ["rsync", ["-esh -c id", "a", "b"]],
      ["vim", ["-c!id"]],
      ["ssh", ["-oProxyCommand=sh -c id", "host"]],
      ["scp", ["-oProxyCommand=sh -c id", "a", "host:b"]],
    ] as const) {
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    }
    // A flag that takes a value ends the letters: a module or a folder is no cluster of flags.
    expect(rule("perl", ["-MTest::More", "t/basic.t"])).toBe("allow");
    expect(rule("python3", ["-mcoverage", "run", "x.py"])).toBe("allow");
    expect(rule("git", ["-Csrc", "status"])).toBe("allow");
    expect(rule("tar", ["-xzf", "a.tgz"])).toBe("allow");
    expect(rule("rsync", ["-av", "a/", "b/"])).toBe("allow");
    expect(rule("python3", ["-Wdefault", "x.py"])).toBe("allow");
  });

  it("needs a person for a pager, a browser, a client's shell command or a program a connection is handed to", () => {
    for (const [bin, args] of [
      ["man", ["-P", "sh -c id", "ls"]],
      ["man", ["-Psh -c id", "ls"]],
      ["man", ["--pager=sh -c id", "ls"]],
      ["man", ["-Hfirefox", "ls"]],
      ["mysql", ["-e", "system id"]],
      ["mysql", ["--execute=\\! id"]],
      ["mariadb", ["-e", "pager sh -c id"]],
      ["mysql", ["--pager=sh -c id"]],
      ["socat", ["-", "EXEC:id"]],
      ["socat", ["tcp-listen:9000,fork", "system:'sh -c id'"]],
      ["nc", ["-l", "9000", "-e", "/bin/sh"]],
      ["ncat", ["--sh-exec", "id", "host", "80"]],
      ["perf", ["stat", "sh", "-c", "id"]],
      ["xvfb-run", ["sh", "-c", "id"]],
      ["emacs", ["--batch", "--eval", '(shell-command "id")']],
      ["julia", ["-e", "run(`id`)"]],
      ["erl", ["-noshell", "-eval", 'os:cmd("id")']],
      ["dc", ["-e", "!id"]],
      ["gcc", ["-wrapper", "/bin/sh,-s", "x.c"]],
      ["gcc", ["-B./evil", "x.c"]],
      ["clang", ["-fplugin=./evil.so", "x.c"]],
      ["gcc-12", ["-B", "./evil", "x.c"]],
      ["rpm", ["--eval", "%(id)"]],
      ["tcpdump", ["-w", "x.pcap", "-G", "1", "-z", "./evil"]],
    ] as const) {
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    }
    expect(rule("man", ["ls"])).toBe("allow");
    expect(rule("dc", ["-e", "2 3 + p"])).toBe("allow");
    expect(rule("gcc", ["-DBUILD=1", "-O2", "-o", "x", "x.c"])).toBe("allow");
    expect(rule("rpm", ["-qa"])).toBe("allow");
    expect(rule("mysql", ["-e", "select count(*) from t"])).toBe("allow");
    expect(rule("socat", ["-", "TCP:example.org:80"])).toBe("allow");
    expect(rule("nc", ["-z", "example.org", "80"])).toBe("allow");
  });
});

describe("libraries and configuration files that carry a program", () => {
  it("needs a person for ssh's configuration file, libraries loaded into ssh tools and openssl's engines", () => {
    for (const [bin, args] of [
      ["ssh", ["-F", "./agent_written_config", "host"]],
      ["ssh", ["-F./agent_written_config", "host"]],
      ["ssh", ["-vF", "./cfg", "host"]],
      ["ssh", ["-I", "./evil.so", "host"]],
      ["scp", ["-F", "./cfg", "a", "host:b"]],
      ["scp", ["-D", "./server", "a", "host:b"]],
      ["sftp", ["-b", "./batch", "host"]],
      ["sftp", ["-D./server", "host"]],
      ["ssh-keygen", ["-D", "./evil.so"]],
      ["ssh-keygen", ["-t", "ed25519-sk", "-w", "./evil.so"]],
      ["ssh-add", ["-s", "./evil.so"]],
      ["openssl", ["req", "-engine", "./evil.so", "-new"]],
      ["openssl", ["list", "-provider-path", ".", "-provider", "evil"]],
      ["openssl", ["req", "-new", "-config", "./agent.cnf"]],
    ] as const) {
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    }
    // A flag that takes a value ends the letters: a login name holding an o is no -o.
    expect(rule("ssh", ["-lroot", "host", "uptime"])).toBe("allow");
    expect(rule("ssh", ["-p2222", "-i", "key", "host"])).toBe("allow");
    expect(rule("scp", ["-P2222", "a", "host:b"])).toBe("allow");
    expect(rule("ssh-keygen", ["-t", "ed25519", "-f", "key", "-N", ""])).toBe("allow");
    expect(rule("ssh-keygen", ["-lf", "key.pub"])).toBe("allow");
    expect(rule("openssl", ["x509", "-in", "cert.pem", "-noout", "-dates"])).toBe("allow");
  });
});

describe("deny and confirm entries, with options put before their words", () => {
  const config = OsConfig.parse({
    enabled: true,
    allow: ["git", "kubectl"],
    deny: ["git push"],
    confirm: ["kubectl delete"],
  });
  const ruled = (bin: string, args: string[]) => {
    const verdict = decide(config, bin, args);
    return verdict.verdict === "refuse" ? verdict.rule : "allow";
  };

  it("hold wherever their words occur in order, so global options are no way around them", () => {
    expect(ruled("git", ["push"])).toBe("deny");
    expect(ruled("git", ["-C", ".", "push", "origin"])).toBe("deny");
    expect(ruled("git", ["-c", "core.pager=cat", "--no-pager", "push"])).toBe("deny");
    expect(ruled("kubectl", ["-n", "prod", "delete", "pod", "x"])).toBe("confirm");
    expect(ruled("kubectl", ["--context=prod", "delete", "ns", "x"])).toBe("confirm");
  });

  it("leave alone what does not hold their words, and allow entries still match from the start", () => {
    expect(ruled("git", ["-C", ".", "status"])).toBe("allow");
    expect(ruled("git", ["pushx"])).toBe("allow");
    expect(ruled("kubectl", ["get", "pods"])).toBe("allow");
    const narrow = OsConfig.parse({ enabled: true, allow: ["git status"] });
    expect(decide(narrow, "git", ["-C", "..", "status"]).verdict).toBe("refuse");
    expect(decide(narrow, "git", ["status", "--short"]).verdict).toBe("allow");
  });
});

describe("long options given as GNU getopt_long and argp take them: any unambiguous prefix", () => {
  it("needs a person for an abbreviation of a listed long flag, joined by = or with its value next", () => {
    for (const [bin, args] of [
      ["tar", ["-cf", "/dev/null", "--checkpoint=1", "--checkpoint-act=exec=touch /tmp/P1", "."]],
      ["tar", ["-cf", "/dev/null", "--checkpoint-a", "exec=touch /tmp/P1", "."]],
      ["tar", ["-xf", "a.tar", "--to-comm=sh -c id"]],
      ["tar", ["-xf", "a.tar", "--to", "sh -c id"]],
      ["tar", ["-cf", "a.tar", "--use-compress-prog=sh -c id", "."]],
      ["tar", ["-cf", "a.tar", "--use-c", "sh -c id", "."]],
      ["make", ["-f", "/dev/null", "--ev=$(shell touch /tmp/P4)"]],
      ["make", ["-f", "/dev/null", "--eva", "$(shell id)"]],
      ["gmake", ["--ev=$(shell id)"]],
      ["wget", ["--execu=use_askpass=./x", "https://example.org"]],
      ["wget", ["--use-ask=./x", "https://example.org"]],
      ["git", ["ls-remote", "--upload-p=sh -c id", "origin"]],
      ["git", ["push", "--receive-p", "sh -c id", "origin"]],
      ["man", ["--pag=sh -c id", "ls"]],
      ["man", ["--ht=firefox", "ls"]],
      ["mysql", ["--pag=sh -c id"]],
      ["ncat", ["--sh-ex", "id", "host", "80"]],
      ["rsync", ["--rsync-p=sh -c id", "a", "host:b"]],
      ["zip", ["z.zip", "f", "-T", "--unzip-com=sh -c id"]],
      ["emacs", ["--batch", "--ev", '(shell-command "id")']],
      ["julia", ["--pr", "run(`id`)"]],
      ["node", ["--imp=data:text/javascript,1"]],
    ] as const) {
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    }
  });

  it("keeps tar's --checkpoint written in full, and leaves single-dash long options to exact names", () => {
    expect(rule("tar", ["-cf", "a.tar", "--checkpoint=1000", "."])).toBe("allow");
    expect(rule("tar", ["-cf", "a.tar", "--checkpoint", "."])).toBe("allow");
    expect(rule("tar", ["-xzf", "a.tgz", "--totals", "--to-stdout"])).toBe("allow");
    expect(rule("make", ["-f", "Makefile", "--environment-overrides", "--", "all"])).toBe("allow");
    expect(rule("wget", ["--tries=3", "--user-agent=x", "https://example.org"])).toBe("allow");
    expect(rule("git", ["log", "--reverse", "--oneline"])).toBe("allow");
    // find and openssl take their single-dash options by their exact names only.
    expect(rule("find", [".", "-executable", "-type", "f"])).toBe("allow");
    expect(rule("find", [".", "-exec", "id", ";"])).toBe("confirm");
  });
});

describe("options that run a program or write a file the caller names", () => {
  const reason = (bin: string, args: string[]) => {
    const verdict = decide(everything, bin, args);
    return verdict.verdict === "refuse" ? verdict.reason : "allow";
  };

  it("needs a person for tar's volume script, remote shell, and every spelling of its program options", () => {
    for (const args of [
      ["-cM", "-L", "10", "-F", "touch /tmp/P2", "-f", "a.tar", "-f", "b.tar", "somefile"],
      ["-cMFtouch /tmp/P2", "-L", "10", "-f", "a.tar", "x"],
      ["-cML10", "-Ftouch", "-fa.tar", "x"],
      ["-cM", "--info-script=touch /tmp/P2", "-f", "a.tar", "x"],
      ["-cM", "--info-s", "touch /tmp/P2", "-f", "a.tar", "x"],
      ["-cM", "--new-volume-scr=touch /tmp/P2", "-f", "a.tar", "x"],
      ["-cf", "host:a.tar", "--rsh-command=/tmp/evil", "x"],
      ["-cf", "host:a.tar", "--rsh-c", "/tmp/evil", "x"],
      ["-cf", "host:a.tar", "--rmt-comm=/tmp/evil", "x"],
      ["-xf", "a.tar", "--to-command", "sh -c id"],
      ["-cvzIsh -c id", "-f", "a.tar", "x"],
      ["--use-compress-program", "sh -c id", "-cf", "a.tar", "x"],
      ["-cvf", "/dev/null", "--index-f=/home/u/.bashrc", "x"],
      // The old style: a first argument without a dash is all flags, values following in turn.
      ["cIf", "sh -c id", "a.tar", "x"],
      ["cMF", "touch /tmp/P2", "a.tar", "x"],
    ])
      expect(rule("tar", args), `tar ${args.join(" ")}`).toBe("confirm");
    // A value attached to a flag that takes one is no cluster: the archive is named Foo.tar.
    for (const args of [
      ["-cfFoo.tar", "x"],
      ["-cf", "Index.tar", "x"],
      ["cvf", "a.tar", "x"],
      ["-tvf", "a.tar"],
    ])
      expect(rule("tar", args), `tar ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for sort's compress program and its output file", () => {
    for (const args of [
      ["-S", "4k", "-T", "/tmp", "--compress-program=sh", "/tmp/cmds"],
      ["--compress-prog", "sh", "x"],
      ["--compress-p=sh", "x"],
      ["-o", "/home/u/.bashrc", "lines"],
      ["-ro/home/u/.bashrc", "lines"],
      ["--out=/home/u/.bashrc", "lines"],
    ])
      expect(rule("sort", args), `sort ${args.join(" ")}`).toBe("confirm");
    expect(reason("sort", ["-o", "/home/u/.bashrc", "x"])).toContain(
      "writes a file named on the command line",
    );
    // -t's value is a separator, -k's a key: no o there.
    for (const args of [
      ["-t", "o", "-k2", "x"],
      ["-to", "x"],
      ["-rn", "-k", "2", "x"],
      ["-S", "4k", "x"],
    ])
      expect(rule("sort", args), `sort ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for a make variable whose name or value make expands into a shell", () => {
    for (const args of [
      ["-f", "/dev/null", "X:=$(shell touch /tmp/P3)"],
      ["-f", "/dev/null", "X=$\u007Bshell id}"],
      ["-f", "/dev/null", "X!=touch /tmp/P3"],
      ["-f", "/dev/null", "$(shell id)=1"],
      ["all", "CFLAGS+=$(shell id)"],
    ])
      expect(rule("make", args), `make ${args.join(" ")}`).toBe("confirm");
    expect(rule("gmake", ["X:=$(shell id)"])).toBe("confirm");
    for (const args of [
      ["-C", "src"],
      ["-j4", "install"],
      ["-C", "src", "main"],
      ["-f", "Makefile", "--", "all"],
    ])
      expect(rule("make", args), `make ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for find's -fprint, -fprint0, -fprintf and -fls", () => {
    for (const args of [
      ["/usr/share/doc", "-fprintf", "/tmp/cmds", "touch /tmp/P5\\n"],
      [".", "-fprint", "/home/u/.bashrc"],
      [".", "-fprint0", "/tmp/x"],
      [".", "-name", "x", "-fls", "/tmp/x"],
    ])
      expect(rule("find", args), `find ${args.join(" ")}`).toBe("confirm");
    for (const args of [
      [".", "-printf", "%p\\n"],
      [".", "-print0"],
      [".", "-ls"],
      [".", "-name", "*.ts"],
    ])
      expect(rule("find", args), `find ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for git's --output, in every subcommand and abbreviation, and git archive -o", () => {
    for (const args of [
      ["log", "-1", "--format=[os]%nenabled = true", "--output=/tmp/P6"],
      ["log", "-1", "--output", "/tmp/P6"],
      ["log", "-1", "--outp=/tmp/P6"],
      ["show", "--output=/tmp/x", "HEAD"],
      ["diff", "HEAD~1", "--out=/tmp/x"],
      ["format-patch", "-1", "--output=/tmp/x"],
      ["archive", "--output=/home/u/.bashrc", "HEAD"],
      ["archive", "-o", "/home/u/.bashrc", "HEAD"],
      ["archive", "-o/home/u/.bashrc", "HEAD"],
      ["-C", ".", "archive", "-v", "-o", "x.tar", "HEAD"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    for (const args of [
      ["log", "--output-indicator-new=>", "-p"],
      ["archive", "--format=tar", "HEAD"],
      ["log", "--oneline", "-o"],
      ["commit", "-o", "file", "-m", "x"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for text filters writing where an operand or option says: uniq IN OUT, xxd -r IN OUT, split, csplit -f, iconv -o, shuf -o, tree -o", () => {
    for (const [bin, args] of [
      ["uniq", ["notes.txt", "/home/u/.bashrc"]],
      ["uniq", ["-c", "-f", "1", "notes.txt", "/home/u/.bashrc"]],
      ["uniq", ["--", "notes.txt", "/home/u/.bashrc"]],
      ["xxd", ["-r", "-p", "hex.txt", "/home/u/.profile"]],
      ["xxd", ["-c", "16", "notes.txt", "out"]],
      ["split", ["notes.txt", "/home/u/.bashrc.d/x"]],
      ["split", ["--filter=sh", "notes.txt"]],
      ["csplit", ["-f", "/home/u/.bashrc.d/x", "notes.txt", "2"]],
      ["iconv", ["-f", "utf-8", "-t", "utf-8", "-o", "/home/u/.zshrc", "notes.txt"]],
      ["iconv", ["--output=/home/u/.zshrc", "notes.txt"]],
      ["shuf", ["-o", "/home/u/.profile", "one.txt"]],
      ["shuf", ["--output=/home/u/.profile", "one.txt"]],
      ["tree", ["-o", "/home/u/.bashrc", "src"]],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    for (const [bin, args] of [
      ["uniq", ["notes.txt"]],
      ["uniq", ["-c", "-f", "1", "notes.txt"]],
      ["uniq", ["notes.txt", "-"]],
      ["xxd", ["-c", "16", "notes.txt"]],
      ["xxd", ["-l", "64", "-s", "8", "notes.txt", "-"]],
      ["split", ["-l", "1", "notes.txt"]],
      ["csplit", ["notes.txt", "2"]],
      ["iconv", ["-f", "latin1", "-t", "utf-8", "notes.txt"]],
      ["shuf", ["-n", "1", "one.txt"]],
      ["tree", ["-L", "2", "src"]],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for search tools that run a program on what they find: rg --pre, fd -x", () => {
    for (const [bin, args] of [
      ["rg", ["--pre", "sh", "x", "notes.txt"]],
      ["rg", ["--pre=sh", "x"]],
      ["rg", ["--hostname-bin=./h", "x"]],
      ["fd", ["notes", "-x", "sh"]],
      ["fd", ["-Hx", "sh"]],
      ["fd", ["--exec-batch", "sh"]],
      ["fdfind", ["notes", "--exec", "sh"]],
      ["fdfind", ["-X", "sh"]],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    for (const [bin, args] of [
      ["rg", ["--pre-glob", "*.gz", "x"]],
      ["rg", ["-n", "x", "src"]],
      ["fd", ["-e", "x", "src"]],
      ["fd", ["-ex", "src"]],
      ["fdfind", ["-H", "-t", "f", "notes"]],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for git grep's pager however its long name is abbreviated", () => {
    for (const args of [
      ["grep", "--open-files=./pg.sh", "-e", "x"],
      ["grep", "--open=./pg.sh", "-e", "x"],
      ["grep", "--open-files-in-pager", "./pg.sh", "-e", "x"],
      ["difftool", "--extc=./pg.sh", "HEAD~1"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    expect(rule("git", ["log", "--ext-diff", "-1"])).toBe("allow");
  });

  it("needs a person for git going into submodules, however the option is abbreviated", () => {
    for (const args of [
      ["grep", "--recurse-sub", "-e", "x"],
      ["grep", "--recurse-submodules", "-e", "x"],
      ["fetch", "--recurse-sub=yes"],
      ["status", "--ignore-sub=none"],
      ["status", "--ignore-submodules=dirty"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    for (const args of [
      ["fetch", "--recurse-sub=no"],
      ["status", "--ignore-sub=all"],
      ["grep", "--recursive", "-e", "x"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for git config writing the operator's files, however the scope is abbreviated", () => {
    for (const args of [
      ["config", "--glob", "alias.zz", "!echo ran"],
      ["config", "--globa", "core.pager", "sh"],
      ["config", "--sys", "alias.zz", "!echo ran"],
      ["config", "--fil=/home/u/.gitconfig", "alias.zz", "!echo ran"],
      ["config", "set", "--glob", "alias.zz", "!echo ran"],
      ["config", "alias.zz", "status"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    for (const args of [["config", "--glob", "--get", "user.name"]])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for git's program flags with the program attached or closing a cluster", () => {
    for (const args of [
      ["rebase", "-x./evil.sh", "HEAD~1"],
      ["rebase", "-ix./evil.sh", "HEAD~1"],
      ["grep", "-iO./evil.sh", "x"],
      ["grep", "-3O./evil.sh", "x"],
      ["difftool", "-yx/tmp/evil.sh", "HEAD"],
      ["clone", "-qu./evil.sh", "/srv/repo"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    for (const args of [
      ["grep", "-eOops"],
      ["grep", "-iw", "-e", "x"],
      ["rebase", "-Xtheirs", "HEAD~1"],
      ["rebase", "-i", "HEAD~1"],
      ["difftool", "-t", "xxdiff", "HEAD"],
      ["difftool", "-txxdiff", "HEAD"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for git putting the repository's content at a path of the caller's", () => {
    for (const args of [
      // A bundle's ref names are lines a shell runs: `refs/heads/x;curl${IFS}…|sh;#`.
      ["bundle", "create", "/home/u/.bashrc", "--all"],
      ["--work-tree=/home/u", "checkout", "HEAD", "--", ".bashrc"],
      ["--work-tree", "/home/u", "reset", "--hard"],
      ["checkout-index", "--prefix=/home/u/.", "bashrc"],
      ["worktree", "add", "/home/u/.config/autostart"],
      ["clone", ".", "/home/u/.oh-my-zsh/custom"],
      ["clone", "--depth", "1", "https://example.org/r", "/home/u/x"],
      ["clone", "--separate-git-dir=/home/u/g", "https://example.org/r"],
      ["init", "/home/u"],
      ["format-patch", "-1", "-o", "/home/u/.bashrc.d"],
      ["format-patch", "-1", "--output-directory=/home/u/.bashrc.d"],
      ["merge-file", "--theirs", "/home/u/.bashrc", "/dev/null", "payload"],
      ["merge-file", "-L", "-p", "/home/u/.bashrc", "/dev/null", "payload"],
      ["merge-file", "--std", "/home/u/.bashrc", "/dev/null", "payload"],
      ["apply", "--unsafe-paths", "--directory=/home/u", "x.patch"],
      ["apply", "--unsa", "--dir=/home/u", "x.patch"],
      ["mailsplit", "-o/home/u/.bashrc.d", "mbox"],
      ["init-db", "/home/u"],
      ["init-db", "--template=./tpl"],
      ["init", "--templ=./tpl"],
      ["init", "--separate-git=/home/u/g"],
      ["checkout-index", "--pref=/home/u/.", "bashrc"],
      ["archive", "-vo/home/u/.bashrc", "HEAD"],
      ["format-patch", "-1", "-ko/home/u/.bashrc.d"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    for (const args of [
      ["bundle", "create", "-", "--all"],
      ["bundle", "verify", "x.bundle"],
      ["clone", "--depth", "1", "https://example.org/r"],
      ["clone", "-b", "main", "https://example.org/r"],
      ["init"],
      ["init", "-b", "main"],
      ["worktree", "list"],
      ["format-patch", "-1", "--stdout"],
      ["merge-file", "-p", "a", "b", "c"],
      ["merge-file", "-qp", "a", "b", "c"],
      ["merge-file", "-L", "x", "--stdout", "a", "b", "c"],
      ["apply", "--check", "x.patch"],
      ["init-db"],
      ["format-patch", "-1", "-k", "--stdout"],
      ["format-patch", "-1", "--stdout", "-vx"],
      ["checkout", "HEAD", "--", "README.md"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("allow");
  });
});

describe("git's plumbing that writes where the caller says, runs a program or reaches another repository", () => {
  it("needs a person for a file, folder or socket written at a path of the caller's", () => {
    for (const args of [
      ["fast-export", "--export-marks=/home/u/.bashrc", "HEAD"],
      ["fast-export", "--export-marks", "/home/u/.bashrc", "HEAD"],
      ["fast-export", "--export-m=/home/u/.bashrc", "HEAD"],
      ["fast-import", "--export-marks=/home/u/.bashrc"],
      ["fast-import", "--export-pack-edges=/home/u/.bashrc"],
      ["mailinfo", "/home/u/.bashrc", "/home/u/.profile"],
      ["pack-objects", "/home/u/.config/x"],
      ["index-pack", "-o", "/home/u/.bashrc", "p.pack"],
      ["index-pack", "--keep", "/home/u/x.pack"],
      ["bugreport", "-o", "/home/u/.bashrc.d"],
      ["bugreport", "-o/home/u/.bashrc.d"],
      ["diagnose", "--output-dir=/home/u"],
      ["multi-pack-index", "--object-dir=/home/u/o", "write"],
      ["commit-graph", "write", "--obj=/home/u/o"],
      ["credential-cache--daemon", "/home/u/.ssh/authorized_keys"],
      ["credential-cache", "--socket=/home/u/.ssh/authorized_keys", "store"],
      ["credential-cache", "exit"],
      ["merge-one-file", "a", "a", "", "/home/u/.bashrc", "100644", "100644", ""],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    for (const args of [
      ["fast-export", "HEAD"],
      ["fast-export", "--import-marks=m", "HEAD"],
      ["fast-import", "--import-marks-if-exists=m"],
      ["pack-objects", "--stdout"],
      ["index-pack", "--stdin"],
      ["index-pack", "--verify", "p.pack"],
      ["bugreport", "-s", "x"],
      ["bugreport", "-so"],
      ["multi-pack-index", "write"],
      ["commit-graph", "write", "--reachable"],
      ["credential-store", "get"],
      ["var", "GIT_EDITOR"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for merge-index's program, for-each-repo, and a transport's far end run directly", () => {
    for (const args of [
      ["merge-index", "./evil.sh", "-a"],
      ["merge-index", "-o", "-q", "sh", "-a"],
      ["for-each-repo", "--config=maintenance.repo", "--", "reset", "--hard"],
      ["receive-pack", "in.git"],
      ["upload-pack", "/home/u/repo"],
      ["upload-archive", "/home/u/repo"],
      ["http-fetch", "--packfile=0123", "--index-pack-args=for-each-repo --config=x -- gc", "https://x/p"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    expect(rule("git", ["merge", "--no-ff", "topic"])).toBe("allow");
  });
});

describe("git pushing to a repository on this machine", () => {
  it("needs a person for a push or send-pack to a path or file: URL, however the repository is named", () => {
    for (const args of [
      ["push", "/home/u/repo", "HEAD:refs/heads/x"],
      ["push", "../other", "HEAD"],
      ["push", "./in.git", "HEAD"],
      ["push", "."],
      ["push", "file:///home/u/repo", "HEAD"],
      ["push", "FILE:/home/u/repo", "HEAD"],
      ["push", "--repo=/home/u/repo"],
      ["push", "--rep", "/home/u/repo"],
      ["push", "-fo", "opt", "/home/u/repo", "HEAD"],
      ["push", "--", "/home/u/repo", "HEAD"],
      ["-C", "sub", "push", "-f", "../../x", "HEAD"],
      ["send-pack", "/home/u/repo", "HEAD:refs/heads/x"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("confirm");
    for (const args of [
      ["push"],
      ["push", "origin", "HEAD"],
      ["push", "-o", "ci.skip", "origin", "HEAD"],
      ["push", "https://example.org/r.git", "HEAD"],
      ["push", "ssh://git@example.org/r.git", "HEAD"],
      ["push", "git@example.org:team/r.git", "HEAD"],
      ["push", "--repo=origin"],
      ["fetch", "../other"],
    ])
      expect(rule("git", args), `git ${args.join(" ")}`).toBe("allow");
  });
});

describe("downloaders, clients and tools that write where they are told or read a file of options", () => {
  it("needs a person for wget and curl writing a file the caller names, or reading an option file", () => {
    for (const [bin, args] of [
      ["wget", ["-O", "/home/u/.bashrc", "https://example.org/x"]],
      ["wget", ["-qO/home/u/.bashrc", "https://example.org/x"]],
      ["wget", ["--output-d=/home/u/.bashrc", "https://example.org/x"]],
      ["wget", ["-o", "/home/u/.bashrc", "https://example.org/;id"]],
      ["wget", ["--append-out", "/home/u/.bashrc", "https://example.org/"]],
      ["wget", ["-P", "/home/u/.config/autostart", "https://example.org/x.desktop"]],
      ["wget", ["--directory-p=/home/u", "https://example.org/.bashrc"]],
      ["wget", ["--conf=./wgetrc", "https://example.org"]],
      ["curl", ["-o", "/home/u/.bashrc", "https://example.org/x"]],
      ["curl", ["-so/home/u/.bashrc", "https://example.org/x"]],
      ["curl", ["--outp", "/home/u/.bashrc", "https://example.org/x"]],
      ["curl", ["-O", "--output-dir", "/home/u", "https://example.org/.bashrc"]],
      ["curl", ["-D", "/home/u/.bashrc", "https://example.org"]],
      ["curl", ["--cookie-j=/home/u/.bashrc", "https://example.org"]],
      ["curl", ["--trace-a", "/tmp/x", "https://example.org"]],
      ["curl", ["-K", "./curlrc"]],
      ["curl", ["-sK./curlrc"]],
      ["curl", ["--conf", "./curlrc"]],
      ["curl", ["--engine", "./evil.so", "https://example.org"]],
      ["curl", ["-w", "%output{/home/u/.bashrc}id", "https://example.org"]],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    for (const [bin, args] of [
      ["wget", ["-qO-", "https://example.org"]],
      ["wget", ["-O", "-", "https://example.org"]],
      ["wget", ["--output-document=-", "https://example.org"]],
      ["wget", ["-nv", "--tries=2", "https://example.org/x.tar.gz"]],
      ["curl", ["-fsSL", "https://example.org"]],
      ["curl", ["-o", "-", "-D", "-", "https://example.org"]],
      ["curl", ["-O", "https://example.org/x.tar.gz"]],
      ["curl", ["--cookie", "a=b", "-H", "Cookie: c", "https://example.org"]],
      ["curl", ["-HContent-Type: text/plain", "-d", "@body.json", "https://example.org"]],
      ["curl", ["-w", "%{http_code}", "-so", "-", "https://example.org"]],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("allow");
  });

  it("needs a person for man's and mysql's configuration files, mysql's tee and source, ncat's and openssl's output files, emacs --execute", () => {
    for (const [bin, args] of [
      ["man", ["-C", "./man.conf", "ls"]],
      ["man", ["--config-f=./man.conf", "ls"]],
      ["mysql", ["--defaults-file=./my.cnf"]],
      ["mysql", ["--defaults-extra=./my.cnf"]],
      ["mariadb", ["--plugin-dir=./plugins", "--default-auth=evil"]],
      ["mysql", ["-e", "tee /home/u/.bashrc; select 'id'"]],
      ["mysql", ["-e", "\\T /home/u/.bashrc"]],
      ["mysql", ["-e", "source ./cmds.sql"]],
      ["mysql", ["-e", "\\. ./cmds.sql"]],
      ["ncat", ["-o", "/home/u/.bashrc", "example.org", "80"]],
      ["ncat", ["--outp=/home/u/.bashrc", "example.org", "80"]],
      ["openssl", ["base64", "-d", "-in", "payload.b64", "-out", "/home/u/.bashrc"]],
      ["emacs", ["--batch", "--execute", '(shell-command "id")']],
      ["emacs", ["--batch", "-execute", '(shell-command "id")']],
      ["emacs", ["--batch", "--exec", '(shell-command "id")']],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("confirm");
    for (const [bin, args] of [
      ["man", ["-k", "printf"]],
      ["mysql", ["-e", "select 1"]],
      ["ncat", ["-z", "example.org", "80"]],
      ["openssl", ["base64", "-d", "-in", "payload.b64"]],
      ["openssl", ["x509", "-in", "cert.pem", "-outform", "DER"]],
    ] as const)
      expect(rule(bin, [...args]), `${bin} ${args.join(" ")}`).toBe("allow");
  });
});

describe("code reached through forms the flag table missed", () => {
  const confirmed: readonly (readonly [string, readonly string[]])[] = [
    // Every variable given to make on the command line is code: the built-in rules run $(CC) by a
    // shell, SHELL and .SHELLFLAGS choose it, MAKEFLAGS adds options.
    ["make", ["-C", "src", 'CC=sh -c "id > /tmp/x" #', "main"]],
    ["make", ["CC=gcc", "CFLAGS=-O2 -g", "all"]],
    ["make", ["-j4", "PREFIX=/usr/local", "install"]],
    ["make", ["SHELL=/tmp/evil", "all"]],
    ["make", [".SHELLFLAGS=-c id;", "all"]],
    ["make", ["MAKEFLAGS=--eval=SHELL=/tmp/evil", "all"]],
    ["make", ["X:=1"]],
    ["make", ["X+=1"]],
    ["make", ["X?=1"]],
    ["make", ["--", "CC=sh -c id #", "all"]],
    ["gmake", ["CC=sh -c id #", "main"]],
    // `-m` closing a cluster of python's flags (`-Ic`, `-Bcimport os` were refused already).
    ["python3", ["-Im", "timeit", "-n1", "-r1", '__import__("os").system("id")']],
    ["python3", ["-Bm", "timeit", "x"]],
    ["python3", ["-um", "cProfile", "-m", "x"]],
    ["python3", ["-Imtimeit", "x"]],
    ["python3.11", ["-sIm", "profile", "x.py"]],
    // node's test reporter, and a data: URL given to any option of a JavaScript runtime.
    ["node", ["--test", "--test-reporter=data:text/javascript,1", "/dev/null"]],
    ["node", ["--test-reporter", "data:text/javascript,1", "--test", "/dev/null"]],
    ["node", ["--test", "--test-reporter=./reporter.mjs"]],
    ["node", ["--experimental-default-type=module", "--experimental-policy=data:application/json,{}"]],
    ["nodejs", ["--test-reporter", "DATA:text/javascript,1"]],
    ["deno", ["run", "data:text/javascript,1"]],
    ["bun", ["--preload=data:text/javascript,1", "x.ts"]],
    // perl's -d:MOD and -dt:MOD become a `use` statement as -M does; -M closing a cluster too.
    ["perl", ['-d:Peek;system("id");#', "/dev/null"]],
    ["perl", ['-dt:Peek;system("id");#', "/dev/null"]],
    ["perl", ['-wd:Peek;system("id");#', "/dev/null"]],
    ["perl", ['-wMstrict;system("id");#', "/dev/null"]],
    ["perl", ['-l0Mstrict;system("id");#', "/dev/null"]],
    ["perl", ['-wm(strict);system("id");#', "/dev/null"]],
    // Any git config write, of the repository's own configuration too.
    ["git", ["config", "core.fsmonitor", "sh -c id"]],
    ["git", ["config", "alias.x", "!id"]],
    ["git", ["config", "--local", "alias.x", "!id"]],
    ["git", ["config", "--add", "core.fsmonitor", "id"]],
    ["git", ["config", "--replace-all", "alias.x", "!id"]],
    ["git", ["config", "--unset", "user.name"]],
    ["git", ["config", "--uns", "user.name"]],
    ["git", ["config", "--unset-all", "user.name"]],
    ["git", ["config", "--rename-section", "a", "b"]],
    ["git", ["config", "--remove-section", "a"]],
    ["git", ["config", "--edit"]],
    ["git", ["config", "-e"]],
    ["git", ["config", "--type", "bool", "core.bare", "true"]],
    ["git", ["config", "-ft", "core.fsmonitor", "id"]],
    ["git", ["config", "set", "core.fsmonitor", "id"]],
    ["git", ["config", "set", "--append", "alias.x", "!id"]],
    ["git", ["config", "unset", "user.name"]],
    ["git", ["config", "rename-section", "a", "b"]],
    ["git", ["config", "remove-section", "a"]],
    ["git", ["config", "edit"]],
    ["git", ["-C", ".", "config", "core.fsmonitor", "id"]],
  ];
  const allowed: readonly (readonly [string, readonly string[]])[] = [
    ["make", ["-C", "src", "main"]],
    ["make", ["-s", "-k", "test"]],
    ["python3", ["-m", "pytest", "-q"]],
    ["python3", ["-Im", "pytest", "-q"]],
    ["python3", ["-Bmcoverage", "run", "x.py"]],
    ["python3", ["-I", "x.py", "--mode=fast"]],
    ["node", ["--test", "--test-reporter=spec", "test/"]],
    ["node", ["--test", "--test-reporter", "tap"]],
    ["node", ["--enable-source-maps", "dist/index.js", "--url=https://example.org/data:x"]],
    ["deno", ["run", "main.ts"]],
    ["perl", ["-d", "x.pl"]],
    ["perl", ["-d:NYTProf", "x.pl"]],
    ["perl", ["-dt:Trace=1,2", "x.pl"]],
    ["perl", ["-wMstrict", "-MTest::More", "t/basic.t"]],
    ["perl", ["-IMyLib", "x.pl"]],
    ["git", ["config", "--get", "user.name"]],
    ["git", ["config", "user.name"]],
    ["git", ["config", "--get-all", "remote.origin.fetch"]],
    ["git", ["config", "--get-regexp", "^alias\\."]],
    ["git", ["config", "--list"]],
    ["git", ["config", "-l"]],
    ["git", ["config", "-lz", "--show-origin"]],
    ["git", ["config", "--list", "--show-scope"]],
    ["git", ["config", "--show-origin", "--get", "user.name"]],
    ["git", ["config", "--type", "bool", "core.bare"]],
    ["git", ["config", "--type=bool", "--default", "false", "core.bare"]],
    ["git", ["config", "--global", "--list"]],
    ["git", ["config", "get", "user.name"]],
    ["git", ["config", "get", "--all", "--show-names", "remote.origin.fetch"]],
    ["git", ["config", "list", "--local"]],
  ];

  it.each(confirmed)("needs a person for %s %j", (bin, args) => {
    expect(rule(bin, [...args])).toBe("confirm");
  });

  it.each(allowed)("still allows %s %j", (bin, args) => {
    expect(rule(bin, [...args])).toBe("allow");
  });

  it("names what it refuses: a git config write, a make variable, perl's -d:", () => {
    const reason = (bin: string, args: string[]) => {
      const verdict = decide(everything, bin, args);
      return verdict.verdict === "refuse" ? verdict.reason : "allow";
    };
    expect(reason("git", ["config", "core.fsmonitor", "id"])).toContain("`git config (a write)`");
    expect(reason("make", ["CC=sh", "main"])).toContain("`make VAR=value`");
    expect(reason("perl", ["-d:Peek;system(1)"])).toContain("`perl -d:`");
  });
});
