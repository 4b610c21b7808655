import fs from "node:fs";
import path from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's chromium (never a downloaded browser); PROVING_CHROMIUM overrides the path. */
export const CHROMIUM = process.env.PROVING_CHROMIUM || "/usr/bin/chromium";
export const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);

/**
 * `false` when the browser tests can run; otherwise the reason to skip them. Under CI=true a missing
 * browser is not a reason: the tests run and fail (see `requireChromium`).
 */
export const SKIP_BROWSER: string | false =
  HAVE_CHROMIUM || process.env.CI === "true"
    ? false
    : `no ${CHROMIUM} (apt-get install -y chromium); under CI=true this fails instead`;

export function requireChromium(): void {
  if (!HAVE_CHROMIUM)
    throw new Error(
      `the browser test needs ${CHROMIUM} (Debian package chromium: apt-get install -y chromium)`,
    );
}

export interface PageWatch {
  page: Page;
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** Requests to anything but the report file itself. */
  foreign: string[];
}

/** Headless chromium with a fresh profile under `dir`; nothing is downloaded. */
export async function launch(dir: string): Promise<BrowserContext> {
  requireChromium();
  const profile = fs.mkdtempSync(path.join(dir, "chromium-profile-"));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** Opens a page that records console errors, page errors and every request that leaves the file. */
export async function watchedPage(context: BrowserContext, file: string): Promise<PageWatch> {
  const page = await context.newPage();
  const errors: string[] = [];
  const foreign: string[] = [];
  const self = `file://${file}`;
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("request", (r) => {
    const url = r.url();
    if (url.split("#")[0] !== self && !url.startsWith("data:")) foreign.push(url);
  });
  return { page, errors, foreign };
}
