<?xml version="1.0" encoding="UTF-8"?>
<!-- Renders a Hadoop configuration file (the *-site.xml files here, accel-default.xml) as an HTML
     table when a browser opens it: every site file names this sheet in its xml-stylesheet line. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html" encoding="UTF-8"/>
  <xsl:template match="/configuration">
    <html>
      <head>
        <title>Hadoop configuration</title>
        <style>
          table { border-collapse: collapse; font-family: sans-serif; font-size: 90%; }
          th, td { border: 1px solid #999; padding: 3px 6px; text-align: left; vertical-align: top; }
          th { background: #ddd; }
          td.name { font-family: monospace; white-space: nowrap; }
        </style>
      </head>
      <body>
        <table>
          <tr><th>name</th><th>value</th><th>final</th><th>description</th></tr>
          <xsl:for-each select="property">
            <tr>
              <td class="name"><a name="{name}"><xsl:value-of select="name"/></a></td>
              <td><xsl:value-of select="value"/></td>
              <td><xsl:value-of select="final"/></td>
              <td><xsl:value-of select="description"/></td>
            </tr>
          </xsl:for-each>
        </table>
      </body>
    </html>
  </xsl:template>
</xsl:stylesheet>
