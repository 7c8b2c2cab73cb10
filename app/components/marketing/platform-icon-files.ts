// The contents of public/icons/*.svg (platform icons), derived from simple-icons.
import { siAndroid, siIos, siLinux, siMacos } from "simple-icons";

const WINDOWS_PATH = "M0 3.4 9.8 2v9.5H0zm11-1.6L24 0v11.4H11zM0 12.5h9.8V22L0 20.6zm11 0h13V24l-13-1.8z";

const svg = (title: string, fill: string, d: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="${fill}"><title>${title}</title><path d="${d}"/></svg>\n`;

/** File name → SVG text. Linux is drawn in black: Tux's yellow has too little contrast on white. */
export function platformIconFiles(): Record<string, string> {
  return {
    "windows.svg": svg("Windows", "#0078D4", WINDOWS_PATH),
    "macos.svg": svg(siMacos.title, `#${siMacos.hex}`, siMacos.path),
    "android.svg": svg(siAndroid.title, `#${siAndroid.hex}`, siAndroid.path),
    "ios.svg": svg(siIos.title, `#${siIos.hex}`, siIos.path),
    "linux.svg": svg(siLinux.title, "#000000", siLinux.path),
  };
}
