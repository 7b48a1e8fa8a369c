// The hosted checkout's times in the shopper's own time zone and locale (the browser's).
// Every <time data-local-time datetime="ISO 8601"> is rewritten; the server's text (UTC) stays
// when this script does not run, and remains on hover (title). Served from the platform's own
// static files: the page loads nothing from elsewhere.
(function () {
  "use strict";
  var TIME = { hour: "2-digit", minute: "2-digit", timeZoneName: "short" };
  var DAY_AND_TIME = { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" };

  function localise(element) {
    var when = new Date(element.getAttribute("datetime"));
    if (isNaN(when.getTime())) { return; }
    // Another day than today where the shopper is (near midnight): say which.
    var options = when.toDateString() === new Date().toDateString() ? TIME : DAY_AND_TIME;
    var text;
    try {
      text = when.toLocaleString(undefined, options);
    } catch (error) {
      return;  // an old browser without Intl options: the UTC text stays
    }
    element.title = element.textContent.trim();
    element.textContent = text;
    element.setAttribute("data-localised", "true");
  }

  var times = document.querySelectorAll("time[data-local-time]");
  for (var i = 0; i < times.length; i++) { localise(times[i]); }
})();
