/**
 * Restricted browsers: in-app browsers and web views, where WebAuthn is missing, broken, or creates
 * passkeys the user cannot find again. ua-parser-js marks most of them with browser type "inapp"
 * (Facebook, Instagram, LinkedIn, TikTok, Line, Snapchat, Android WebView "; wv)", Edge WebView2, …);
 * two cases it leaves unmarked are added here.
 */
import type { ParsedUserAgent } from './userAgent.js';

export interface RestrictedBrowserVerdict {
  restricted: boolean;
  /** Why, for logs and customData: "in-app:Instagram", "ios-webview"; null when not restricted. */
  reason: string | null;
}

/** Browser names ua-parser-js recognises but does not type as in-app (WeChat's built-in browser, 2.0.x). */
const IN_APP_NAMES = new Set(['wechat']);

export function assessRestrictedBrowser(ua: ParsedUserAgent): RestrictedBrowserVerdict {
  if (ua.browserType === 'inapp' || ua.browserType === 'webview') {
    return { restricted: true, reason: `in-app:${ua.browserName || 'unknown'}` };
  }
  if (IN_APP_NAMES.has(ua.browserName.toLowerCase())) return { restricted: true, reason: `in-app:${ua.browserName}` };
  if (isIosWebView(ua)) return { restricted: true, reason: 'ios-webview' };
  return { restricted: false, reason: null };
}

/**
 * A WKWebView inside an iOS app sends Safari's user agent without the "Safari/" token. Every iOS
 * browser (Safari, Chrome "CriOS", Firefox "FxiOS", Edge "EdgiOS") keeps that token, so its absence
 * on an iOS WebKit user agent means an embedded view.
 */
function isIosWebView(ua: ParsedUserAgent): boolean {
  const isIos = /^(ios|ipados)$/i.test(ua.osName) || /\b(iPhone|iPad|iPod)\b/.test(ua.userAgent);
  return isIos && /AppleWebKit\//.test(ua.userAgent) && /\bMobile\//.test(ua.userAgent) && !/\bSafari\//.test(ua.userAgent);
}
