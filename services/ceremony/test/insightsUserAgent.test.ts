/** Restricted-browser detection on real user agent strings (ua-parser-js plus the module's additions). */
import { describe, expect, it } from 'vitest';
import { assessRestrictedBrowser } from '../src/domain/insights/restrictedBrowser.js';
import { osFamilyOf, parseUserAgent } from '../src/domain/insights/userAgent.js';

const UA = {
  instagramIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 311.0.2.15.109 (iPhone14,5; iOS 17_1_2; en_US; en; scale=3.00; 1170x2532; 546357281)',
  facebookAndroid:
    'Mozilla/5.0 (Linux; Android 13; SM-G991B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.163 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/442.0.0.33.113;]',
  facebookIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/431.0.0.34.109;FBBV/512345678;FBDV/iPhone14,2;FBMD/iPhone;FBSN/iOS;FBSV/16.6;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]',
  androidWebView: 'Mozilla/5.0 (Linux; Android 10; K; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.144 Mobile Safari/537.36',
  linkedinIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.27.6425',
  tiktokAndroid:
    'Mozilla/5.0 (Linux; Android 12; SM-A515F Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/114.0.5735.196 Mobile Safari/537.36 trill_2023009040 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/trill app_version/30.9.4 ByteLocale/en ByteFullLocale/en Region/US BytedanceWebview/d8a21c6',
  wechatIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.34(0x18002231) NetType/WIFI Language/zh_CN',
  lineIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.9.0',
  snapchatIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.40.0.35 (like Safari/8615.2.9.10.4, panda)',
  iosWkWebView: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  chromeDesktop: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  safariIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
  chromeIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1',
  firefoxIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/121.0 Mobile/15E148 Safari/605.1.15',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
  samsungInternet: 'Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
  firefoxDesktop: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0',
};

describe('assessRestrictedBrowser', () => {
  it.each<[keyof typeof UA, string]>([
    ['instagramIos', 'in-app:Instagram'],
    ['facebookAndroid', 'in-app:Facebook'],
    ['facebookIos', 'in-app:Facebook'],
    ['androidWebView', 'in-app:Chrome WebView'],
    ['linkedinIos', 'in-app:LinkedIn'],
    ['tiktokAndroid', 'in-app:TikTok'],
    ['wechatIos', 'in-app:WeChat'],
    ['lineIos', 'in-app:Line'],
    ['snapchatIos', 'in-app:Snapchat'],
    ['iosWkWebView', 'ios-webview'],
  ])('%s is restricted (%s)', (name, reason) => {
    expect(assessRestrictedBrowser(parseUserAgent(UA[name]))).toEqual({ restricted: true, reason });
  });

  it.each<keyof typeof UA>(['chromeDesktop', 'safariIos', 'chromeIos', 'firefoxIos', 'chromeAndroid', 'samsungInternet', 'safariMac', 'firefoxDesktop'])('%s is not restricted', (name) => {
    expect(assessRestrictedBrowser(parseUserAgent(UA[name]))).toEqual({ restricted: false, reason: null });
  });

  it('an empty or garbage user agent is not restricted', () => {
    expect(assessRestrictedBrowser(parseUserAgent('')).restricted).toBe(false);
    expect(assessRestrictedBrowser(parseUserAgent('curl/8.5.0')).restricted).toBe(false);
  });
});

describe('parseUserAgent', () => {
  it.each<[keyof typeof UA, string, string, string]>([
    ['chromeDesktop', 'Chrome', 'Windows', 'windows'],
    ['safariIos', 'Mobile Safari', 'iOS', 'apple'],
    ['instagramIos', 'Instagram', 'iOS', 'apple'],
    ['facebookAndroid', 'Facebook', 'Android', 'android'],
    ['safariMac', 'Safari', 'macOS', 'apple'],
  ])('%s → %s on %s', (name, browser, os, family) => {
    const parsed = parseUserAgent(UA[name]);
    expect(parsed.browserName).toBe(browser);
    expect(parsed.osName).toBe(os);
    expect(osFamilyOf(parsed.osName)).toBe(family);
  });

  it('reuses one parser without leaking state between calls', () => {
    expect(parseUserAgent(UA.instagramIos).browserType).toBe('inapp');
    expect(parseUserAgent(UA.chromeDesktop).browserType).toBe('');
    expect(parseUserAgent('').browserName).toBe('');
  });
});
