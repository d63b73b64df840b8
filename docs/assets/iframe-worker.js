/* rankviz documentation: a stand-in for Web Workers on pages opened from disk.

   Browsers refuse `new Worker(url)` on file:// pages, and the theme's search runs in a worker. On
   such pages this script replaces window.Worker with FrameWorker: the worker's script runs in a
   hidden same-origin iframe; what it posts reaches the page as "message" events, what the page
   posts reaches it the same way. Written for this site; served pages (http, https) keep the
   browser's own Worker. */
(function () {
  "use strict";
  if (location.protocol !== "file:") {
    return;
  }

  function loadInOrder(doc, urls) {
    // the worker's importScripts, asynchronous here: each script runs after the one before it
    return urls.reduce(function (previous, url) {
      return previous.then(function () {
        return new Promise(function (resolve, reject) {
          var script = doc.createElement("script");
          script.src = url;
          script.onload = resolve;
          script.onerror = reject;
          doc.body.appendChild(script);
        });
      });
    }, Promise.resolve());
  }

  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      var page = this;
      var frame = document.createElement("iframe");
      frame.hidden = true;
      document.body.appendChild(frame);
      this.frame = frame;
      var inner = frame.contentWindow;
      inner.document.open();
      inner.document.write("<!doctype html><html><body></body></html>");
      inner.document.close();
      // inside the frame, the worker's globals: what it posts goes to the page
      inner.postMessage = function (data) {
        page.deliver(new MessageEvent("message", { data: data }));
      };
      inner.importScripts = function () {
        return loadInOrder(inner.document, Array.prototype.slice.call(arguments));
      };
      this.ready = loadInOrder(inner.document, [String(url)]).catch(function (error) {
        var event = new ErrorEvent("error", { message: String(error), filename: String(url) });
        page.dispatchEvent(event);
        if (typeof page.onerror === "function") {
          page.onerror(event);
        }
      });
    }

    deliver(event) {
      this.dispatchEvent(event);
      if (typeof this.onmessage === "function") {
        this.onmessage(event);
      }
    }

    postMessage(data) {
      var frame = this.frame;
      this.ready.then(function () {
        // a copy, as a real worker gets one
        var copy = typeof structuredClone === "function" ? structuredClone(data) : data;
        frame.contentWindow.dispatchEvent(new MessageEvent("message", { data: copy }));
      });
    }

    terminate() {
      this.frame.remove();
    }
  }

  window.Worker = FrameWorker;
})();
