/**
 * Child process for the busy-lock test: takes SQLite's write lock on the store at argv[2]
 * (`begin immediate`), says `locked`, holds it for argv[3] ms, says `released <epoch ms>` and commits.
 */
import Database from "better-sqlite3";

const [file, holdMs] = process.argv.slice(2);
const db = new Database(file!);
db.exec("begin immediate");
process.stdout.write("locked\n");
setTimeout(() => {
  process.stdout.write(`released ${Date.now()}\n`);
  db.exec("commit");
  db.close();
}, Number(holdMs));
