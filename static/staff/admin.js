// The staff admin's changelist filters are dropdowns in a bar above the list
// (static/staff/admin.css): closed when a page opens (Django's filters.js would reopen the ones
// last opened), one open at a time, closed by Escape or a click elsewhere.
"use strict";
(function () {
  function filters() {
    return document.querySelectorAll("#changelist-filter details");
  }

  document.addEventListener("DOMContentLoaded", function () {
    filters().forEach(function (detail) {
      detail.removeAttribute("open");
      detail.addEventListener("toggle", function () {
        if (!detail.open) {
          return;
        }
        filters().forEach(function (other) {
          if (other !== detail) {
            other.removeAttribute("open");
          }
        });
      });
    });
  });

  document.addEventListener("click", function (event) {
    if (!event.target.closest("#changelist-filter details")) {
      filters().forEach(function (detail) {
        detail.removeAttribute("open");
      });
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      filters().forEach(function (detail) {
        detail.removeAttribute("open");
      });
    }
  });
})();
